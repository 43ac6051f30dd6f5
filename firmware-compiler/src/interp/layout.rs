//! Memory layouts the interpreter and the back end must agree on: where each
//! `__shared__` variable lives in a block's shared memory, and where each
//! stack slot lives in a function's frame.
//!
//! [`shared_layout`] is the one definition of the shared-memory layout: the
//! back end places `shared_addr @x` at the same offsets, so a kernel that
//! stores a shared address into global memory sees the same value under the
//! interpreter and on the machine.

use crate::ir::{Function, Module};

/// Placement of the module's `__shared__` variables in a block's shared
/// memory: declaration order, each at the next multiple of its alignment,
/// starting at byte 0.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedLayout {
    /// Byte offset of each variable, indexed by `SharedId`.
    pub offsets: Vec<u32>,
    /// Bytes the variables occupy (end of the last one).
    pub size: u32,
}

/// A layout that cannot be computed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LayoutError {
    #[error("{what} has alignment {align}, which is not a power of two")]
    BadAlign { what: String, align: u32 },
    #[error("{what} does not fit in the 32-bit address space")]
    TooLarge { what: String },
}

/// Places `(name, size, align)` objects one after another from offset 0,
/// each at the next multiple of its alignment (`align` 0 counts as 1).
/// Returns the offsets, the end of the last object and the largest
/// alignment.
fn place<'a>(
    items: impl Iterator<Item = (String, u32, u32)> + 'a,
) -> Result<(Vec<u32>, u32, u32), LayoutError> {
    let mut offsets = Vec::new();
    let mut end: u64 = 0;
    let mut max_align = 1;
    for (what, size, align) in items {
        let align = align.max(1);
        if !align.is_power_of_two() {
            return Err(LayoutError::BadAlign { what, align });
        }
        max_align = max_align.max(align);
        let start = end.next_multiple_of(u64::from(align));
        end = start + u64::from(size);
        if end > u64::from(u32::MAX) {
            return Err(LayoutError::TooLarge { what });
        }
        offsets.push(start as u32);
    }
    Ok((offsets, end as u32, max_align))
}

/// The shared-memory layout of `module`: the single definition used by the
/// interpreter (`shared_addr`) and the back end.
pub fn shared_layout(module: &Module) -> Result<SharedLayout, LayoutError> {
    let items = module
        .shared
        .iter()
        .map(|s| (format!("shared variable @{}", s.name), s.size, s.align));
    let (offsets, size, _) = place(items)?;
    Ok(SharedLayout { offsets, size })
}

/// Placement of a function's stack slots in its frame: declaration order,
/// each at the next multiple of its alignment from the frame's start. The
/// frame itself starts at a multiple of `align`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FrameLayout {
    /// Offset of each slot from the frame start, indexed by `StackSlot`.
    pub offsets: Vec<u32>,
    /// Bytes the slots occupy.
    pub size: u32,
    /// The largest slot alignment (at least 1).
    pub align: u32,
}

/// The frame layout of `func`.
pub fn frame_layout(func: &Function) -> Result<FrameLayout, LayoutError> {
    let items = func.stack_slots.iter().enumerate().map(|(i, s)| {
        (
            format!("stack slot ss{i} of @{}", func.name),
            s.size,
            s.align,
        )
    });
    let (offsets, size, align) = place(items)?;
    Ok(FrameLayout {
        offsets,
        size,
        align,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::FuncKind;

    #[test]
    fn shared_variables_are_placed_in_declaration_order_with_alignment() {
        let mut m = Module::default();
        m.add_shared("a", 3, 1);
        m.add_shared("b", 8, 4);
        m.add_shared("c", 1, 1);
        m.add_shared("d", 4, 16);
        let layout = shared_layout(&m).unwrap();
        assert_eq!(layout.offsets, vec![0, 4, 12, 16]);
        assert_eq!(layout.size, 20);
    }

    #[test]
    fn bad_alignment_and_overflow_are_errors() {
        let mut m = Module::default();
        m.add_shared("a", 3, 3);
        assert!(matches!(
            shared_layout(&m),
            Err(LayoutError::BadAlign { align: 3, .. })
        ));
        let mut m = Module::default();
        m.add_shared("a", u32::MAX, 1);
        m.add_shared("b", 1, 1);
        assert!(matches!(
            shared_layout(&m),
            Err(LayoutError::TooLarge { .. })
        ));
    }

    #[test]
    fn frame_alignment_is_the_largest_slot_alignment() {
        let mut f = Function::new("f", FuncKind::Device);
        f.add_stack_slot(2, 2);
        f.add_stack_slot(12, 8);
        let layout = frame_layout(&f).unwrap();
        assert_eq!(layout.offsets, vec![0, 8]);
        assert_eq!(layout.size, 20);
        assert_eq!(layout.align, 8);
    }
}
