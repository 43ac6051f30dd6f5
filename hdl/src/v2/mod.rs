pub mod gentry;
pub mod gmaster;
