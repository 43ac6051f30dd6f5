//! Assembler (placeholder, being written).
