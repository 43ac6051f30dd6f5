//! Variables the generated code can see, with what may be done to them.
//! Loop counters, trip bounds, guards, recursion depths and the thread ids
//! are read-only: the generator never writes them, which is what makes
//! every loop terminate and every recursion reach its base case.

use super::env::{MemTy, Ty};

/// Where a generated pointer points, and so what it may be used for.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum PtrTarget {
    /// Into a read-only input buffer: read anywhere in `0..span`.
    Input,
    /// The thread's own `out` slots: read and written in `0..span`.
    OwnOut,
    /// Into a shared array: read in `0..span`, only between barriers
    /// that follow a write phase (the read phase).
    SharedAny,
    /// The thread's own shared slot (`span` 1): read at any time, written
    /// only in the write phase.
    SharedOwn,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) struct Ptr {
    pub(super) elem: MemTy,
    /// Valid offsets are `0..span`; a power of two.
    pub(super) span: u32,
    pub(super) target: PtrTarget,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum VarKind {
    Scalar {
        ty: Ty,
        mutable: bool,
    },
    /// A local array of `len` (a power of two) `int` or `unsigned`.
    Array {
        ty: Ty,
        len: u32,
    },
    Pointer(Ptr),
}

#[derive(Clone, PartialEq, Eq, Debug)]
pub(super) struct Var {
    pub(super) name: String,
    pub(super) kind: VarKind,
}

/// Nested C scopes; names are unique across the whole kernel, so an inner
/// declaration never shadows an outer one.
#[derive(Default)]
pub(super) struct Scopes {
    stack: Vec<Vec<Var>>,
}

impl Scopes {
    pub(super) fn push(&mut self) {
        self.stack.push(Vec::new());
    }

    pub(super) fn pop(&mut self) {
        self.stack.pop();
    }

    pub(super) fn declare(&mut self, name: impl Into<String>, kind: VarKind) {
        if self.stack.is_empty() {
            self.stack.push(Vec::new());
        }
        if let Some(top) = self.stack.last_mut() {
            top.push(Var {
                name: name.into(),
                kind,
            });
        }
    }

    pub(super) fn visible(&self) -> impl Iterator<Item = &Var> {
        self.stack.iter().flatten()
    }

    /// Scalars that may be read (`any` type or only `ty`).
    pub(super) fn scalars(&self, ty: Option<Ty>) -> Vec<(String, Ty)> {
        self.visible()
            .filter_map(|v| match v.kind {
                VarKind::Scalar { ty: t, .. } if ty.map_or(true, |want| want == t) => {
                    Some((v.name.clone(), t))
                }
                _ => None,
            })
            .collect()
    }

    /// Scalars the generated code may assign.
    pub(super) fn mutable_scalars(&self) -> Vec<(String, Ty)> {
        self.visible()
            .filter_map(|v| match v.kind {
                VarKind::Scalar { ty, mutable: true } => Some((v.name.clone(), ty)),
                _ => None,
            })
            .collect()
    }

    pub(super) fn arrays(&self) -> Vec<(String, Ty, u32)> {
        self.visible()
            .filter_map(|v| match v.kind {
                VarKind::Array { ty, len } => Some((v.name.clone(), ty, len)),
                _ => None,
            })
            .collect()
    }

    pub(super) fn pointers(&self) -> Vec<(String, Ptr)> {
        self.visible()
            .filter_map(|v| match v.kind {
                VarKind::Pointer(p) => Some((v.name.clone(), p)),
                _ => None,
            })
            .collect()
    }

    /// The scalars of the outermost scope (the kernel's top level), for the
    /// final checksum.
    pub(super) fn outermost_scalars(&self) -> Vec<(String, Ty)> {
        self.stack
            .first()
            .into_iter()
            .flatten()
            .filter_map(|v| match v.kind {
                VarKind::Scalar { ty, .. } => Some((v.name.clone(), ty)),
                _ => None,
            })
            .collect()
    }
}
