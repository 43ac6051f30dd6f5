//! Launch descriptions (placeholder, being written).
