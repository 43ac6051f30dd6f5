//! Random program generator (being written).
