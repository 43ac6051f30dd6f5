//! The kernel binary container (`.cbin`): code, entry points and metadata.

/// A named entry point of a kernel: the PC where its threads start.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Entry {
    pub name: String,
    pub pc: u32,
}

/// An assembled or compiled kernel, ready to load into instruction memory.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Kernel {
    /// Instruction memory image, word 0 first.
    pub code: Vec<u32>,
    /// At least one entry point.
    pub entries: Vec<Entry>,
    /// Kernel parameter names, one per parameter word, in `ldparam` index order.
    pub params: Vec<String>,
    /// Bytes of shared memory the kernel uses per block.
    pub shared_bytes: u32,
    /// Highest general register index used + 1.
    pub regs_used: u32,
    /// Highest predicate index used + 1 (`pt` counts as index 0).
    pub preds_used: u32,
    /// Code labels (name, pc), for disassembly listings. Optional.
    pub symbols: Vec<(String, u32)>,
}
