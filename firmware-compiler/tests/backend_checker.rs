//! The allocation checker on real allocated code: it accepts what the
//! pipeline produces and rejects the same code with one register changed.

mod backend_common;

use backend_common::parse;
use concord_compiler::backend::checker::check;
use concord_compiler::backend::frame::{Convention, Frame};
use concord_compiler::backend::lower::{lower, LowerContext};
use concord_compiler::backend::pcode::{Item, PFunction};
use concord_compiler::backend::regalloc::{allocate_gprs, DefaultSpillPolicy, VLoc};
use concord_compiler::backend::{edge_split, isel, liveness, predalloc};
use concord_isa::instr::{Op, Reg};

const KERNEL: &str = "
kernel @k(out) {
block0:
    v0 = special tid.x
    v1 = iconst 0
    jump block1(v1, v0)
block1(v2: i32, v3: i32):
    v4 = iadd v2, v3
    v5 = iconst 1
    v6 = isub v3, v5
    v7 = icmp gt v6, v1
    brif v7, block1(v4, v6), block2
block2:
    v8 = param 0
    store.global.b32 v4, v8
    return
}
";

fn allocated(regs: u32) -> (PFunction, Option<Reg>) {
    let m = parse(KERNEL);
    let id = m.func_by_name("k").unwrap();
    let mut f = m.func(id).clone();
    edge_split::split_critical_edges(&mut f);
    let mut mf = isel::select(&m, id, &f, &[]).unwrap();
    liveness::remove_dead_code(&mut mf);
    let preds = predalloc::allocate_predicates(&mut mf, 8).unwrap();
    let conv = Convention::new(regs, true, true);
    let gprs = allocate_gprs(&mf, &conv.allocatable(), &DefaultSpillPolicy::new(&mf));
    let mut locs = gprs.locs.clone();
    locs.resize(mf.num_vregs(), None);
    for (i, p) in preds.preds.iter().enumerate() {
        if let Some(p) = p {
            locs[i] = Some(VLoc::Pred(*p));
        }
    }
    let frame = Frame::new(&f, gprs.slots, 0).unwrap();
    let ctx = LowerContext {
        conv: &conv,
        frame: &frame,
        kernel_stack: Some((64, 1 << 16)),
        warp_area: None,
    };
    (lower(&mf, &locs, &ctx).unwrap().0, conv.sp)
}

/// Changes the first source register of the `nth` instruction that has
/// one to `to`.
fn corrupt(code: &mut PFunction, nth: usize, to: u8) -> bool {
    let mut seen = 0;
    for item in &mut code.items {
        if let Item::Inst(p) = item {
            if let Some(instr) = p.instr.as_mut() {
                if let Op::Alu { rs1, .. } | Op::AluImm { rs1, .. } = &mut instr.op {
                    if seen == nth {
                        if rs1.index() == to as usize {
                            return false;
                        }
                        *rs1 = Reg::new(to).unwrap();
                        return true;
                    }
                    seen += 1;
                }
            }
        }
    }
    false
}

#[test]
fn accepts_allocated_code_and_rejects_corruption() {
    for regs in [32, 6, 4] {
        let (code, sp) = allocated(regs);
        check(&code, sp).unwrap_or_else(|e| panic!("regs {regs}: {e}"));
    }
    // Swapping a source register for another one is caught, whichever
    // instruction it is (the stack-pointer set-up has no annotated uses).
    let (code, sp) = allocated(32);
    let mut caught = 0;
    for nth in 0..12 {
        let mut bad = code.clone();
        if corrupt(&mut bad, nth, 9) && check(&bad, sp).is_err() {
            caught += 1;
        }
    }
    assert!(caught >= 4, "only {caught} corruptions caught");
}
