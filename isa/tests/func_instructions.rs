//! Every instruction under a full mask (`@pt`), a partial mask (`@p1`, true
//! on lanes 0 and 2) and an all-false guard (`@!pt`) on the functional
//! model. Expected values are worked out by hand; lanes whose guard is false
//! must keep their old state.

// Expected values are per-lane tables indexed by lane number.
#![allow(clippy::needless_range_loop)]

mod common;

use common::{run_asm, Run, Setup};

const SENTINEL: u32 = 0xDEAD;
/// (guard prefix, executing lanes of a 4-lane warp)
const GUARDS: [(&str, [bool; 4]); 3] = [
    ("", [true; 4]),
    ("@p1 ", [true, false, true, false]),
    ("@!pt ", [false; 4]),
];

/// r1 = a, r2 = b, r3 = SENTINEL, p1 = lanes {0, 2}, then `body`, then exit.
fn program(a: u32, b: u32, p3_init: bool, body: &str) -> String {
    format!(
        "
        s2r     r30, %laneid
        and     r29, r30, 1
        setp.eq p1, r29, 0
        li      r1, {a:#x}
        li      r2, {b:#x}
        li      r3, {SENTINEL}
        pmov    p3, {p3}
        {body}
        exit
        ",
        p3 = if p3_init { "pt" } else { "!pt" }
    )
}

fn run4(src: &str) -> Run {
    let mut global = vec![0u8; 4096];
    for (i, b) in global.iter_mut().enumerate().take(512).skip(256) {
        *b = i as u8; // bytes 0x100..0x200 hold their own low address byte
    }
    run_asm(
        src,
        Setup {
            global,
            params: vec![7, 8],
            ..Setup::default()
        },
    )
}

/// `instr` writes r3; executing lanes must hold `expected[lane]`.
/// Puts the guard on the last line of a snippet (earlier lines set up operands).
fn guard_last(guard: &str, snippet: &str) -> String {
    match snippet.rsplit_once('\n') {
        Some((setup, last)) => format!("{setup}\n{guard}{last}"),
        None => format!("{guard}{snippet}"),
    }
}

fn check_reg_per_lane(instr: &str, a: u32, b: u32, expected: [u32; 4]) {
    for (guard, exec) in GUARDS {
        let run = run4(&program(a, b, false, &guard_last(guard, instr)));
        for lane in 0..4 {
            let want = if exec[lane] { expected[lane] } else { SENTINEL };
            assert_eq!(
                run.reg(lane, 3),
                want,
                "`{guard}{instr}` lane {lane} (a={a:#x}, b={b:#x})"
            );
        }
    }
}

fn check_reg(instr: &str, a: u32, b: u32, expected: u32) {
    check_reg_per_lane(instr, a, b, [expected; 4]);
}

/// `instr` writes p3 (initialised to `!expected`); executing lanes must hold `expected`.
fn check_pred(instr: &str, a: u32, b: u32, expected: bool) {
    for (guard, exec) in GUARDS {
        let run = run4(&program(a, b, !expected, &guard_last(guard, instr)));
        for (lane, executes) in exec.iter().enumerate() {
            let want = if *executes { expected } else { !expected };
            assert_eq!(
                run.preds[0][lane][3], want,
                "`{guard}{instr}` lane {lane} (a={a:#x}, b={b:#x})"
            );
        }
    }
}

const MINUS_10: u32 = 0xFFFF_FFF6;

#[test]
fn alu_register_forms() {
    // a = -10, b = 3, computed by hand.
    let cases = [
        ("add", 0xFFFF_FFF9),   // -7
        ("sub", 0xFFFF_FFF3),   // -13
        ("mul", 0xFFFF_FFE2),   // -30
        ("mulhi", 0xFFFF_FFFF), // high word of -30
        ("mulhiu", 2),          // 0xFFFFFFF6 * 3 = 0x2_FFFF_FFE2
        ("and", 2),
        ("or", 0xFFFF_FFF7),
        ("xor", 0xFFFF_FFF5),
        ("shl", 0xFFFF_FFB0), // -80
        ("shr", 0x1FFF_FFFE),
        ("sra", 0xFFFF_FFFE), // floor(-10 / 8) = -2
        ("min", MINUS_10),
        ("max", 3),
        ("minu", 3),
        ("maxu", MINUS_10),
    ];
    for (op, expected) in cases {
        check_reg(&format!("{op} r3, r1, r2"), MINUS_10, 3, expected);
    }
}

#[test]
fn alu_immediate_forms() {
    let cases = [
        ("add", 0xFFFF_FFF9),
        ("mul", 0xFFFF_FFE2),
        ("and", 2),
        ("or", 0xFFFF_FFF7),
        ("xor", 0xFFFF_FFF5),
        ("shl", 0xFFFF_FFB0),
        ("shr", 0x1FFF_FFFE),
        ("sra", 0xFFFF_FFFE),
    ];
    for (op, expected) in cases {
        check_reg(&format!("{op} r3, r1, 3"), MINUS_10, 0, expected);
    }
    // Negative immediates are sign-extended.
    check_reg("add r3, r1, -2048", 0, 0, 0xFFFF_F800);
    check_reg("and r3, r1, -1", 0x1234_5678, 0, 0x1234_5678);
}

#[test]
fn constants_and_moves() {
    check_reg("movi r3, -5", 0, 0, 0xFFFF_FFFB);
    check_reg("movi r3, 65535", 0, 0, 0xFFFF);
    check_reg("movhi r3, 0x1234", 0, 0, 0x1234_DEAD);
    check_reg("mov r3, r1", 77, 0, 77);
    // `li` of a full 32-bit constant is two guarded instructions.
    check_reg("li r3, 0x89ABCDEF", 0, 0, 0x89AB_CDEF);
}

#[test]
fn comparisons_signed_and_unsigned() {
    // a = -10, b = 3.
    let cases = [
        ("eq", false),
        ("ne", true),
        ("lt", true),
        ("le", true),
        ("gt", false),
        ("ge", false),
        ("ltu", false),
        ("leu", false),
        ("gtu", true),
        ("geu", true),
    ];
    for (cmp, expected) in cases {
        check_pred(&format!("setp.{cmp} p3, r1, r2"), MINUS_10, 3, expected);
        check_pred(&format!("setp.{cmp} p3, r1, 3"), MINUS_10, 0, expected);
    }
    check_pred("setp.eq p3, r1, -512", 0xFFFF_FE00, 0, true);
}

#[test]
fn predicate_logic_and_select() {
    // pt is true, !pt false.
    check_pred("pand p3, pt, !pt", 0, 0, false);
    check_pred("pand p3, pt, pt", 0, 0, true);
    check_pred("por p3, !pt, pt", 0, 0, true);
    check_pred("por p3, !pt, !pt", 0, 0, false);
    check_pred("pxor p3, pt, pt", 0, 0, false);
    check_pred("pxor p3, pt, !pt", 0, 0, true);
    check_pred("pmov p3, !pt", 0, 0, false);
    // sel reads a per-lane predicate: p1 holds on lanes 0 and 2.
    check_reg_per_lane("sel r3, p1, r1, r2", 11, 22, [11, 22, 11, 22]);
    check_reg_per_lane("sel r3, !p1, r1, r2", 11, 22, [22, 11, 22, 11]);
    // Writes to pt are discarded.
    let run = run4(&program(0, 0, false, "pand pt, !pt, !pt\n@pt movi r3, 1"));
    assert_eq!(run.reg(0, 3), 1);
}

#[test]
fn special_registers() {
    check_reg_per_lane("s2r r3, %tid.x", 0, 0, [0, 1, 2, 3]);
    check_reg_per_lane("s2r r3, %tid", 0, 0, [0, 1, 2, 3]);
    check_reg_per_lane("s2r r3, %laneid", 0, 0, [0, 1, 2, 3]);
    check_reg("s2r r3, %tid.y", 0, 0, 0);
    check_reg("s2r r3, %tid.z", 0, 0, 0);
    check_reg("s2r r3, %ntid.x", 0, 0, 4);
    check_reg("s2r r3, %ntid.y", 0, 0, 1);
    check_reg("s2r r3, %ntid.z", 0, 0, 1);
    check_reg("s2r r3, %ctaid.x", 0, 0, 0);
    check_reg("s2r r3, %ctaid.y", 0, 0, 0);
    check_reg("s2r r3, %ctaid.z", 0, 0, 0);
    check_reg("s2r r3, %nctaid.x", 0, 0, 1);
    check_reg("s2r r3, %nctaid.y", 0, 0, 1);
    check_reg("s2r r3, %nctaid.z", 0, 0, 1);
    check_reg("s2r r3, %warpid", 0, 0, 0);
    check_reg("s2r r3, %nwarps", 0, 0, 1);
    check_reg("s2r r3, %warpsize", 0, 0, 4);
    check_reg("s2r r3, %clockhi", 0, 0, 0);
    check_reg("ldparam r3, 1", 0, 0, 8);
}

#[test]
fn special_registers_in_3d_blocks() {
    // Block 2 x 3 x 2 = 12 threads on 4-lane warps: thread 7 is warp 1 lane 3,
    // at x = 7 % 2 = 1, y = (7 / 2) % 3 = 0, z = 7 / 6 = 1.
    let src = "
        s2r r1, %tid.x
        s2r r2, %tid.y
        s2r r3, %tid.z
        s2r r4, %warpid
        s2r r5, %laneid
        s2r r6, %nwarps
        exit
    ";
    let kernel = concord_isa::asm::assemble(src, "t.s").unwrap();
    let config = concord_isa::config::CoreConfig {
        lanes: 4,
        warps: 4,
        ..Default::default()
    };
    let mut global = vec![0u8; config.global_memory_bytes as usize];
    struct Grab(Vec<u32>);
    impl concord_isa::func::Observer for Grab {
        fn block_end(&mut self, _b: [u32; 3], s: &concord_isa::func::BlockView<'_>) {
            for r in 1..=6 {
                self.0.push(s.reg(7, concord_isa::Reg::new(r).unwrap()));
            }
        }
    }
    let mut grab = Grab(vec![]);
    let launch = concord_isa::func::Launch {
        code: &kernel.code,
        entry_pc: 0,
        grid: [1, 1, 1],
        block: [2, 3, 2],
        params: &[],
        stack_bytes: kernel.stack_bytes,
    };
    concord_isa::func::run(
        &config,
        &launch,
        &mut global,
        Default::default(),
        Some(&mut grab),
    )
    .unwrap();
    assert_eq!(grab.0, vec![1, 0, 1, 1, 3, 3]);
}

#[test]
fn loads_of_every_width() {
    // Bytes at 0x100.. hold their address' low byte: 0x100 -> 0x00, 0x181 -> 0x81.
    check_reg("li r4, 0x180\nld.global.u8 r3, [r4+1]", 0, 0, 0x81);
    check_reg("li r4, 0x180\nld.global.s8 r3, [r4+1]", 0, 0, 0xFFFF_FF81);
    check_reg("li r4, 0x180\nld.global.u16 r3, [r4+2]", 0, 0, 0x8382);
    check_reg("li r4, 0x180\nld.global.s16 r3, [r4+2]", 0, 0, 0xFFFF_8382);
    check_reg("li r4, 0x180\nld.global.b32 r3, [r4+4]", 0, 0, 0x8786_8584);
    check_reg("li r4, 0x184\nld.global r3, [r4-4]", 0, 0, 0x8382_8180);
    // Shared memory starts zeroed.
    check_reg("li r4, 64\nld.shared r3, [r4]", 0, 0, 0);
}

#[test]
fn stores_of_every_width_respect_the_guard() {
    for (guard, exec) in GUARDS {
        // Each lane stores to its own word at 0x800 + 4*lane, then all lanes read it back.
        let body = format!(
            "shl r5, r30, 2\nli r4, 0x800\nadd r4, r4, r5\nli r6, 0x11223344\n\
             {guard}st.global.b8 [r4], r6\n{guard}st.global.b16 [r4+0x40], r6\n{guard}st.global [r4+0x80], r6\n\
             {guard}st.shared.b16 [r5+2], r6\nld.shared r7, [r5]"
        );
        let run = run4(&program(0, 0, false, &body));
        for (lane, e) in exec.iter().enumerate() {
            let base = 0x800 + 4 * lane;
            assert_eq!(
                run.word(base),
                if *e { 0x44 } else { 0 },
                "{guard} b8 lane {lane}"
            );
            assert_eq!(
                run.word(base + 0x40),
                if *e { 0x3344 } else { 0 },
                "{guard} b16 lane {lane}"
            );
            assert_eq!(
                run.word(base + 0x80),
                if *e { 0x1122_3344 } else { 0 },
                "{guard} b32 lane {lane}"
            );
            assert_eq!(
                run.reg(lane, 7),
                if *e { 0x3344_0000 } else { 0 },
                "{guard} shared lane {lane}"
            );
        }
    }
}

#[test]
fn same_address_stores_keep_the_highest_lane() {
    let run = run4(&program(0, 0, false, "li r4, 0x800\nst.global [r4], r30"));
    assert_eq!(run.word(0x800), 3);
}

#[test]
fn atomics_apply_in_lane_order_and_return_old_values() {
    // Every executing lane adds (lane + 1) to the word at 0x800 (initially 0).
    for (guard, exec) in GUARDS {
        let body = format!("li r4, 0x800\nadd r5, r30, 1\n{guard}atom.global.add r3, [r4], r5");
        let run = run4(&program(0, 0, false, &body));
        let mut sum = 0;
        for (lane, e) in exec.iter().enumerate() {
            if *e {
                assert_eq!(
                    run.reg(lane, 3),
                    sum,
                    "{guard} lane {lane} sees the running sum"
                );
                sum += lane as u32 + 1;
            } else {
                assert_eq!(run.reg(lane, 3), SENTINEL);
            }
        }
        assert_eq!(run.word(0x800), sum, "{guard}");
    }
    // The other operations, full mask, memory word 6, operand lane+1 (1, 2, 3, 4):
    // each lane sees the result of the lanes below it.
    let cases: [(&str, [u32; 4], u32); 8] = [
        ("exch", [6, 1, 2, 3], 4),
        ("min", [6, 1, 1, 1], 1),
        ("max", [6, 6, 6, 6], 6),
        ("minu", [6, 1, 1, 1], 1),
        ("maxu", [6, 6, 6, 6], 6),
        ("and", [6, 0, 0, 0], 0), // 6&1 = 0
        ("or", [6, 7, 7, 7], 7),  // 6|1 = 7, |2 = 7, |3 = 7
        ("xor", [6, 7, 5, 6], 2), // 6^1=7, 7^2=5, 5^3=6, 6^4=2
    ];
    for (op, olds, fin) in cases {
        let body = format!("li r4, 0x800\nli r6, 6\nst.global [r4], r6\nadd r5, r30, 1\natom.global.{op} r3, [r4], r5");
        let run = run4(&program(0, 0, false, &body));
        for lane in 0..4 {
            assert_eq!(run.reg(lane, 3), olds[lane], "atom.{op} lane {lane}");
        }
        assert_eq!(run.word(0x800), fin, "atom.{op}");
    }
    // Shared atomics.
    let run = run4(&program(
        0,
        0,
        false,
        "li r4, 16\natom.shared.add r3, [r4], r30\nld.shared r7, [r4]",
    ));
    assert_eq!(run.reg(0, 7), 6);
}

#[test]
fn votes_and_ballot() {
    // p1 holds on lanes 0, 2. Voters are the executing lanes.
    for (guard, exec) in GUARDS {
        let run = run4(&program(
            0,
            0,
            false,
            &format!("{guard}vote.any p3, p1\n{guard}vote.all p4, p1\n{guard}vote.ballot r3, p1\n{guard}vote.all p5, pt"),
        ));
        let voters: u32 = (0..4).filter(|l| exec[*l]).map(|l| 1 << l).sum();
        for lane in 0..4 {
            if exec[lane] {
                assert!(run.preds[0][lane][3], "{guard} any");
                // All voters hold p1 only under @p1.
                assert_eq!(run.preds[0][lane][4], guard == "@p1 ", "{guard} all");
                assert_eq!(run.reg(lane, 3), voters & 0b0101, "{guard} ballot");
                assert!(run.preds[0][lane][5]);
            } else {
                assert!(!run.preds[0][lane][3] && !run.preds[0][lane][4] && !run.preds[0][lane][5]);
                assert_eq!(run.reg(lane, 3), SENTINEL);
            }
        }
    }
}

/// Control instructions: executing lanes take the control transfer, the
/// others fall through to the next instruction.
#[test]
fn control_transfers_follow_the_guard() {
    let jumps = [
        "{g}bra over\nmovi r3, 1\nover:",
        "li r8, over\n{g}jmp r8\nmovi r3, 1\nover:",
        "{g}exit\nmovi r3, 1",
    ];
    for body in jumps {
        for (guard, exec) in GUARDS {
            let run = run4(&program(0, 0, false, &body.replace("{g}", guard)));
            run.stats();
            for (lane, e) in exec.iter().enumerate() {
                assert_eq!(
                    run.reg(lane, 3),
                    if *e { SENTINEL } else { 1 },
                    "`{body}` with `{guard}` lane {lane}"
                );
            }
        }
    }
    // Calls: the callee runs on executing lanes only, with the return address
    // (the word after the call) in the link register and depth back at 0.
    let calls = [
        (
            "{g}call r9, fn\nbra over\nfn: movi r10, 5\nret r9\nover:",
            8,
        ),
        (
            "li r8, fn\n{g}callr r9, r8\nbra over\nfn: movi r10, 5\nret r9\nover:",
            9,
        ),
    ];
    for (body, return_pc) in calls {
        for (guard, exec) in GUARDS {
            let run = run4(&program(0, 0, false, &body.replace("{g}", guard)));
            run.stats();
            for (lane, e) in exec.iter().enumerate() {
                assert_eq!(
                    run.reg(lane, 10),
                    if *e { 5 } else { 0 },
                    "`{body}` with `{guard}` lane {lane}"
                );
                assert_eq!(
                    run.reg(lane, 9),
                    if *e { return_pc } else { 0 },
                    "`{body}` link, `{guard}` lane {lane}"
                );
            }
        }
    }
}

#[test]
fn barrier_under_each_guard() {
    let src = |guard: &str| {
        program(
            0,
            0,
            false,
            &format!("{guard}bar.sync\n{guard}nop\nmovi r3, 1"),
        )
    };
    let run = run4(&src(""));
    assert_eq!((run.stats().barrier_arrivals, run.stats().barriers), (4, 1));
    let run = run4(&src("@!pt "));
    assert_eq!((run.stats().barrier_arrivals, run.stats().barriers), (0, 0));
    // Under @p1 lanes 1 and 3 skip the barrier and exit: it can never
    // complete for lanes 0 and 2.
    let run = run4(&src("@p1 "));
    assert_eq!(
        run.trap().cause,
        concord_isa::func::TrapCause::BarrierNeverCompletes {
            waiting: 2,
            exited: 2,
            threads: 4
        }
    );
    assert_eq!(run.trap().lanes, 0b0101);
}

/// Consensual branches under each guard. The guard picks the voters (p3 is
/// false everywhere); with no voter the quantifiers take their empty-set
/// values: `none` and `all` are taken, `any` is not. Every active lane
/// follows the outcome, guard-false lanes included.
#[test]
fn consensual_branches_under_each_guard() {
    for (vote, taken_full, taken_partial, taken_none) in [
        ("none", true, true, true),
        ("any", false, false, false),
        ("all", false, false, true),
    ] {
        for ((guard, _), taken) in GUARDS.iter().zip([taken_full, taken_partial, taken_none]) {
            let body = format!("{guard}bra.{vote} p3, over\nmovi r3, 1\nover:");
            let run = run4(&program(0, 0, false, &body));
            for lane in 0..4 {
                assert_eq!(
                    run.reg(lane, 3),
                    if taken { SENTINEL } else { 1 },
                    "`{body}` lane {lane}"
                );
            }
            assert_eq!(run.stats().divergent_branches, 0);
        }
    }
}

/// `ret` under each guard: lanes whose guard is false stay in the callee
/// (fall through to the next instruction) and return later.
#[test]
fn guarded_ret_returns_only_executing_lanes() {
    for (guard, exec) in GUARDS {
        let body = format!("call r9, fn\nbra over\nfn: {guard}ret r9\nmovi r3, 1\nret r9\nover:");
        let run = run4(&program(0, 0, false, &body));
        run.stats();
        for lane in 0..4 {
            assert_eq!(
                run.reg(lane, 3),
                if exec[lane] { SENTINEL } else { 1 },
                "`{guard}ret` lane {lane}"
            );
        }
    }
}
