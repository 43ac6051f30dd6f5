//! Disassembler (placeholder, being written).
