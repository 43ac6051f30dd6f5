//! Functional model (placeholder, being written).
