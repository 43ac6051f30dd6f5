//! The kernel's environment, drawn before any code: launch shape, the input
//! and output buffers, shared arrays, atomic regions and scalar parameters.
//! Every bound the code generator masks an index with comes from here.

use concord_isa::launch::{Arg, ArgKind, ElemType, Init};

use super::rng::Rng;
use super::GenConfig;

/// The value types of generated scalar expressions (C's `int`,
/// `unsigned`, `bool`; narrow types exist only in memory and casts).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Ty {
    Int,
    Uint,
    Bool,
}

impl Ty {
    pub(super) fn c_name(self) -> &'static str {
        match self {
            Ty::Int => "int",
            Ty::Uint => "unsigned",
            Ty::Bool => "bool",
        }
    }

    /// C's usual arithmetic conversions on two 32-bit-or-narrower operands.
    pub(super) fn arith(a: Ty, b: Ty) -> Ty {
        if a == Ty::Uint || b == Ty::Uint {
            Ty::Uint
        } else {
            Ty::Int
        }
    }

    /// Integer promotion of one operand (`bool` becomes `int`).
    pub(super) fn promoted(self) -> Ty {
        match self {
            Ty::Bool => Ty::Int,
            t => t,
        }
    }
}

/// An element type of memory: the 32-bit ones and the narrow C types.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum MemTy {
    I32,
    U32,
    I8,
    U8,
    I16,
    U16,
}

impl MemTy {
    pub(super) const NARROW: [MemTy; 4] = [MemTy::I8, MemTy::U8, MemTy::I16, MemTy::U16];

    pub(super) fn c_name(self) -> &'static str {
        match self {
            MemTy::I32 => "int",
            MemTy::U32 => "unsigned",
            MemTy::I8 => "signed char",
            MemTy::U8 => "unsigned char",
            MemTy::I16 => "short",
            MemTy::U16 => "unsigned short",
        }
    }

    pub(super) fn elem(self) -> ElemType {
        match self {
            MemTy::I32 => ElemType::I32,
            MemTy::U32 => ElemType::U32,
            MemTy::I8 => ElemType::I8,
            MemTy::U8 => ElemType::U8,
            MemTy::I16 => ElemType::I16,
            MemTy::U16 => ElemType::U16,
        }
    }

    /// The type of a loaded element after integer promotion.
    pub(super) fn loaded(self) -> Ty {
        match self {
            MemTy::U32 => Ty::Uint,
            _ => Ty::Int,
        }
    }
}

/// A read-only input buffer (a kernel parameter).
pub(super) struct Input {
    pub(super) name: String,
    pub(super) ty: MemTy,
    /// Element count, a power of two; its `#define` is `len_macro`.
    pub(super) len: u32,
    pub(super) len_macro: String,
    pub(super) init: Init,
}

/// The block's shared arrays.
pub(super) struct SharedPlan {
    /// `__shared__ int sh0[SH_N]`, `SH_N = threads_pow2 * slots_per_thread`.
    pub(super) words_ty: MemTy,
    pub(super) slots_per_thread: u32,
    pub(super) len: u32,
    /// `__shared__ <narrow> shn[threads_pow2]`, one slot per thread.
    pub(super) narrow: Option<MemTy>,
    /// `__shared__ int sha[ATOM_N]` for shared atomics.
    pub(super) atomics: bool,
}

/// Atomic operations the generator uses; each owns a region of
/// [`ATOM_REGION`] words in `acc`/`sha` so that the final value of every
/// word does not depend on the order the threads' atomics ran in.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum AtomKind {
    Add,
    Min,
    Max,
    And,
    Or,
    Xor,
    /// `atomicExch` with the same constant everywhere: order-independent.
    Exch,
}

impl AtomKind {
    pub(super) const ALL: [AtomKind; 7] = [
        AtomKind::Add,
        AtomKind::Min,
        AtomKind::Max,
        AtomKind::And,
        AtomKind::Or,
        AtomKind::Xor,
        AtomKind::Exch,
    ];

    pub(super) fn function(self) -> &'static str {
        match self {
            AtomKind::Add => "atomicAdd",
            AtomKind::Min => "atomicMin",
            AtomKind::Max => "atomicMax",
            AtomKind::And => "atomicAnd",
            AtomKind::Or => "atomicOr",
            AtomKind::Xor => "atomicXor",
            AtomKind::Exch => "atomicExch",
        }
    }

    /// First word of this operation's region.
    pub(super) fn region(self) -> u32 {
        let index = AtomKind::ALL.iter().position(|&k| k == self).unwrap_or(0);
        index as u32 * ATOM_REGION
    }
}

/// Words per atomic region.
pub(super) const ATOM_REGION: u32 = 4;
/// Words of `acc` and `sha`: one region per [`AtomKind`], rounded up.
pub(super) const ATOM_WORDS: u32 = 32;
/// Words of `uacc`: `atomicMin` on unsigned in words 0..4, `atomicMax` in 4..8.
pub(super) const UATOM_WORDS: u32 = 8;

/// Everything about the kernel that is fixed before its code is drawn.
pub(super) struct Env {
    pub(super) kernel_name: String,
    pub(super) grid: [u32; 3],
    pub(super) block: [u32; 3],
    /// `threads_per_block` rounded up to a power of two.
    pub(super) threads_pow2: u32,
    pub(super) total_threads: u32,
    pub(super) inputs: Vec<Input>,
    /// Output words per thread (`OUT_K`, a power of two).
    pub(super) out_k: u32,
    /// `out_n`: two narrow slots per thread.
    pub(super) narrow_out: Option<MemTy>,
    pub(super) shared: Option<SharedPlan>,
    /// Global atomics into `acc` (int) and `uacc` (unsigned).
    pub(super) global_atomics: bool,
    pub(super) acc_init: Vec<i64>,
    pub(super) uacc_init: Vec<i64>,
    /// The constant every `atomicExch` writes.
    pub(super) exch_value: i64,
    /// Scalar parameters `int k0`, `unsigned k1`.
    pub(super) k0: i64,
    pub(super) k1: i64,
}

impl Env {
    pub(super) fn draw(seed: u64, rng: &mut Rng, config: &GenConfig) -> Env {
        let capacity = config.lanes.max(1).saturating_mul(config.warps.max(1));
        let block = draw_block(rng, config, capacity);
        let threads_per_block = block[0] * block[1] * block[2];
        let grid = draw_grid(rng, config);
        let blocks = grid[0] * grid[1] * grid[2];

        let mut inputs = vec![
            Input {
                name: "in_i".into(),
                ty: MemTy::I32,
                len: 1 << rng.range(5, 7),
                len_macro: "N_I".into(),
                init: draw_init(rng, MemTy::I32),
            },
            Input {
                name: "in_u".into(),
                ty: MemTy::U32,
                len: 1 << rng.range(4, 6),
                len_macro: "N_U".into(),
                init: draw_init(rng, MemTy::U32),
            },
        ];
        let mut narrow_out = None;
        if config.allow_narrow {
            let first = rng.below(4) as usize;
            let second = (first + 1 + rng.below(3) as usize) % 4;
            for (i, which) in [first, second].into_iter().enumerate() {
                let ty = MemTy::NARROW[which];
                inputs.push(Input {
                    name: format!("in_n{i}"),
                    ty,
                    len: 1 << rng.range(4, 6),
                    len_macro: format!("N_N{i}"),
                    init: draw_init(rng, ty),
                });
            }
            narrow_out = rng.choose(&MemTy::NARROW).copied();
        }

        let threads_pow2 = threads_per_block.next_power_of_two();
        let shared = config.allow_shared.then(|| {
            let slots_per_thread = if rng.chance(40) { 2 } else { 1 };
            SharedPlan {
                words_ty: if rng.chance(25) {
                    MemTy::U32
                } else {
                    MemTy::I32
                },
                slots_per_thread,
                len: threads_pow2 * slots_per_thread,
                narrow: if config.allow_narrow && rng.chance(60) {
                    rng.choose(&MemTy::NARROW).copied()
                } else {
                    None
                },
                atomics: config.allow_atomics,
            }
        });

        let acc_init = (0..ATOM_WORDS).map(|_| rng.range(-1000, 1000)).collect();
        let uacc_init = (0..UATOM_WORDS)
            .map(|_| rng.range(0, i64::from(u32::MAX)))
            .collect();

        Env {
            kernel_name: format!("kgen_{seed}"),
            grid,
            block,
            threads_pow2,
            total_threads: threads_per_block * blocks,
            inputs,
            out_k: if rng.chance(50) { 4 } else { 8 },
            narrow_out,
            shared,
            global_atomics: config.allow_atomics,
            acc_init,
            uacc_init,
            exch_value: rng.range(-50, 50),
            k0: rng.range(-20, 40),
            k1: rng.range(0, 100),
        }
    }

    /// The kernel's arguments in parameter order.
    pub(super) fn args(&self) -> Vec<Arg> {
        let mut args: Vec<Arg> = self
            .inputs
            .iter()
            .map(|input| Arg {
                name: input.name.clone(),
                kind: ArgKind::Buffer {
                    elem: input.ty.elem(),
                    len: input.len,
                    init: input.init.clone(),
                },
            })
            .collect();
        args.push(Arg {
            name: "out".into(),
            kind: ArgKind::Buffer {
                elem: ElemType::I32,
                len: self.total_threads * self.out_k,
                init: Init::Zeros,
            },
        });
        if let Some(ty) = self.narrow_out {
            args.push(Arg {
                name: "out_n".into(),
                kind: ArgKind::Buffer {
                    elem: ty.elem(),
                    len: self.total_threads * 2,
                    init: Init::Zeros,
                },
            });
        }
        if self.global_atomics {
            args.push(Arg {
                name: "acc".into(),
                kind: ArgKind::Buffer {
                    elem: ElemType::I32,
                    len: ATOM_WORDS,
                    init: Init::Data(self.acc_init.clone()),
                },
            });
            args.push(Arg {
                name: "uacc".into(),
                kind: ArgKind::Buffer {
                    elem: ElemType::U32,
                    len: UATOM_WORDS,
                    init: Init::Data(self.uacc_init.clone()),
                },
            });
        }
        args.push(Arg {
            name: "k0".into(),
            kind: ArgKind::Scalar {
                ty: ElemType::I32,
                value: self.k0,
            },
        });
        args.push(Arg {
            name: "k1".into(),
            kind: ArgKind::Scalar {
                ty: ElemType::U32,
                value: self.k1,
            },
        });
        args
    }

    /// The buffers reported after the run.
    pub(super) fn outputs(&self) -> Vec<String> {
        let mut outputs = vec!["out".to_string()];
        if self.narrow_out.is_some() {
            outputs.push("out_n".into());
        }
        if self.global_atomics {
            outputs.push("acc".into());
            outputs.push("uacc".into());
        }
        outputs
    }
}

/// A block shape that fits `capacity` threads: sometimes full, sometimes a
/// whole number of warps, often a partial last warp; 2-D/3-D when allowed.
fn draw_block(rng: &mut Rng, config: &GenConfig, capacity: u32) -> [u32; 3] {
    let lanes = config.lanes.max(1);
    if config.allow_multi_dim && rng.chance(35) {
        let z = if rng.chance(30) { 2.min(capacity) } else { 1 };
        let y = rng.range(1, i64::from((capacity / z).clamp(1, 4))) as u32;
        let x = rng.range(1, i64::from((capacity / (y * z)).max(1))) as u32;
        return [x, y, z];
    }
    let threads = match rng.below(4) {
        0 => capacity,
        1 => lanes * rng.range(1, i64::from(capacity / lanes).max(1)) as u32,
        _ => rng.range(1, i64::from(capacity)) as u32,
    };
    [threads.clamp(1, capacity), 1, 1]
}

fn draw_grid(rng: &mut Rng, config: &GenConfig) -> [u32; 3] {
    let blocks = rng.range(1, i64::from(config.max_blocks.clamp(1, 3))) as u32;
    if config.allow_multi_dim && blocks == 2 && rng.chance(30) {
        [1, 2, 1]
    } else {
        [blocks, 1, 1]
    }
}

/// Input contents: small values (so data-dependent trip counts vary), wide
/// values, or the element type's whole range.
fn draw_init(rng: &mut Rng, ty: MemTy) -> Init {
    let elem = ty.elem();
    let (min, max) = match rng.below(3) {
        0 => (elem.min().max(-20), elem.max().min(20)),
        1 => (elem.min().max(-5000), elem.max().min(5000)),
        _ => (elem.min(), elem.max()),
    };
    Init::Random {
        seed: rng.next_u64() & 0xffff_ffff,
        min,
        max,
    }
}
