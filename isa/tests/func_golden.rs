//! Golden traces from the papers and hand-worked examples, on the
//! functional model. Every expected value here was written from the paper or
//! worked out by hand from docs/isa.md, never copied from the model.

mod common;

use common::{run_asm, Setup};
use concord_isa::config::Arbitration;
use concord_isa::func::{RunError, TrapCause};

/// Collange 2011, Table 2: `A; if(!c) br 5; B; br 6; C; D` on 4 threads,
/// T2 and T3 taking the branch. Two setup instructions compute !c, so the
/// table's relative PC k is our PC k + 1.
#[test]
fn collange_table2_if_then_else() {
    let src = "
        s2r     r1, %tid
        setp.ge p1, r1, 2        ; !c holds for T2, T3
    A:  add     r2, r2, 1
        @p1 bra C                ; if(!c) br 5
    B:  add     r3, r3, 1
        bra     D                ; br 6
    C:  add     r4, r4, 1
    D:  add     r5, r5, 1
        exit
    ";
    let run = run_asm(src, Setup::default());
    run.stats();
    let table: Vec<(u32, String)> = run
        .issues()
        .into_iter()
        .filter(|(pc, _)| (2..=7).contains(pc))
        .map(|(pc, m)| (pc - 1, m))
        .collect();
    let expected = [
        (1, "1111"),
        (2, "1111"),
        (3, "1100"),
        (4, "1100"),
        (5, "0011"),
        (6, "1111"),
    ];
    assert_eq!(table, expected.map(|(pc, m)| (pc, m.to_string())));
    // The whole run: 2 setup issues, the table's 6, one exit.
    assert_eq!(run.stats().issued, 9);
    // B ran on T0, T1 only; C on T2, T3 only; D on all.
    for t in 0..4 {
        assert_eq!(run.reg(t, 3), (t < 2) as u32, "B on thread {t}");
        assert_eq!(run.reg(t, 4), (t >= 2) as u32, "C on thread {t}");
        assert_eq!(run.reg(t, 5), 1, "D on thread {t}");
    }
}

/// Collange 2011, Listing 1: `if (c) f();` with `f` above its call site.
/// The code after the if-block must run once with the full mask under the
/// depth key, and twice (once per half) under plain min-PC.
const LISTING1: &str = "
        s2r     r1, %tid
        setp.lt p1, r1, 2        ; c holds for T0, T1
        @p1 call r31, f
after:  add     r2, r2, 1        ; pc 3: the code after the if-block
        exit
f:      add     r3, r3, 1        ; pc 5
        ret     r31
";

#[test]
fn collange_listing1_depth_key_reconverges_after_call() {
    let run = run_asm(LISTING1, Setup::default());
    let after: Vec<_> = run
        .issues()
        .into_iter()
        .filter(|(pc, _)| *pc == 3)
        .collect();
    assert_eq!(after, vec![(3, "1111".to_string())]);
    // Hand trace: s2r, setp, call (1111), f (1100), ret (1100), after (1111), exit (1111).
    let expected = [
        (0, "1111"),
        (1, "1111"),
        (2, "1111"),
        (5, "1100"),
        (6, "1100"),
        (3, "1111"),
        (4, "1111"),
    ];
    assert_eq!(run.issues(), expected.map(|(pc, m)| (pc, m.to_string())));
}

#[test]
fn collange_listing1_pc_only_runs_the_join_twice() {
    let run = run_asm(
        LISTING1,
        Setup {
            arbitration: Arbitration::PcOnly,
            ..Setup::default()
        },
    );
    let after: Vec<_> = run
        .issues()
        .into_iter()
        .filter(|(pc, _)| *pc == 3)
        .collect();
    assert_eq!(
        after,
        vec![(3, "0011".to_string()), (3, "1100".to_string())]
    );
    // Results are the same either way: the policy is only a heuristic.
    for t in 0..4 {
        assert_eq!(run.reg(t, 2), 1);
        assert_eq!(run.reg(t, 3), (t < 2) as u32);
    }
}

#[test]
fn loop_with_per_lane_trip_counts_narrows_then_reconverges_once() {
    let src = "
        s2r     r1, %tid
        add     r1, r1, 1        ; trip count 1..4
    body:
        add     r1, r1, -1       ; pc 2
        setp.gt p1, r1, 0
        @p1 bra body
    done:
        add     r2, r2, 1        ; pc 5
        exit
    ";
    let run = run_asm(src, Setup::default());
    let body: Vec<String> = run
        .issues()
        .into_iter()
        .filter(|(pc, _)| *pc == 2)
        .map(|(_, m)| m)
        .collect();
    assert_eq!(body, ["1111", "0111", "0011", "0001"]);
    let done: Vec<String> = run
        .issues()
        .into_iter()
        .filter(|(pc, _)| *pc == 5)
        .map(|(_, m)| m)
        .collect();
    assert_eq!(done, ["1111"]);
    // The branch at pc 4 splits the active lanes in iterations 1 to 3; in
    // the fourth only one lane is left, so nothing can split.
    assert_eq!(run.stats().divergent_branches, 3);
}

/// Naive spin lock: the winner's critical section sits above the spin loop,
/// so min-PC keeps issuing the losers' spin and the winner starves.
#[test]
fn naive_spin_lock_livelocks_and_the_watchdog_says_so() {
    let src = "
        ldparam r1, 0            ; lock address
        movi    r2, 1
    spin:
        atom.global.exch r3, [r1], r2   ; pc 2
        setp.ne p1, r3, 0
        @p1 bra spin
        ld.global r4, [r1+4]     ; critical section (pc 5)
        add     r4, r4, 1
        st.global [r1+4], r4
        movi    r5, 0
        st.global [r1], r5       ; unlock
        exit
    ";
    let run = run_asm(
        src,
        Setup {
            params: vec![64],
            watchdog: 10_000,
            ..Setup::default()
        },
    );
    let trap = run.trap();
    let TrapCause::Watchdog { limit, diagnosis } = &trap.cause else {
        panic!("not a watchdog trap: {trap}")
    };
    assert_eq!(*limit, 10_000);
    assert!(diagnosis.starts_with("livelock"), "{diagnosis}");
    // Lane 0 won the lock (atomics go in lane order) and waits at pc 5.
    assert_eq!(trap.lanes, 0b0001);
    assert_eq!(trap.pc, 5);
    // The losers' spin (pcs 2..=4) repeats the same state forever: lane 0
    // can never be picked.
    assert_eq!(
        diagnosis,
        "livelock: the state repeats, so the run can never end and the waiting lanes can never be picked: warp 0 lane 0 waits at pc 5; warp 0 lanes 1-3 run at pcs 2..=4; lanes looping at lower PCs starve the lanes they wait for"
    );
    let text = trap.to_string();
    assert!(
        text.contains("watchdog") && text.contains("livelock"),
        "{text}"
    );
}

/// The same lock with the critical section inside the retry loop completes:
/// losers jump over it, the winner runs it, everyone meets at the loop test.
#[test]
fn spin_lock_with_critical_section_inside_the_loop_completes() {
    let src = "
        ldparam r1, 0            ; lock address; counter at +4
        movi    r2, 1
        movi    r5, 0
        pmov    p2, pt           ; p2: this thread still needs the lock
    retry:
        atom.global.exch r3, [r1], r2
        setp.eq p1, r3, 0
        @!p1 bra skip
        ld.global r4, [r1+4]
        add     r4, r4, 1
        st.global [r1+4], r4
        st.global [r1], r5       ; unlock
        pmov    p2, !pt
    skip:
        @p2 bra retry
        exit
    ";
    // 2 warps of 4: the lock is contended inside and across warps.
    let run = run_asm(
        src,
        Setup {
            warps: 2,
            threads: 8,
            params: vec![64],
            ..Setup::default()
        },
    );
    run.stats();
    assert_eq!(run.word(64), 0, "lock released");
    assert_eq!(
        run.word(68),
        8,
        "every thread entered the critical section once"
    );
}

/// Consensual branches for each vote and predicate pattern: the outcome is
/// the quantifier over the active lanes, and the warp never splits.
#[test]
fn consensual_branches_vote_and_never_split() {
    // (vote, lanes where p1 holds as a lane-0-first bit pattern, taken?)
    let cases = [
        ("none", 0b1111, false),
        ("none", 0b0000, true),
        ("none", 0b0101, false),
        ("any", 0b1111, true),
        ("any", 0b0000, false),
        ("any", 0b0101, true),
        ("all", 0b1111, true),
        ("all", 0b0000, false),
        ("all", 0b0101, false),
    ];
    for (vote, pattern, taken) in cases {
        let src = format!(
            "
            s2r     r1, %laneid
            ldparam r2, 0
            shr     r2, r2, r1
            and     r2, r2, 1
            setp.ne p1, r2, 0        ; p1 = bit `lane` of the pattern
            bra.{vote} p1, target    ; pc 5
            movi    r3, 1            ; pc 6: fall-through
            exit
        target:
            movi    r3, 2            ; pc 8
            exit
        "
        );
        let run = run_asm(
            &src,
            Setup {
                params: vec![pattern],
                ..Setup::default()
            },
        );
        run.stats();
        let after: Vec<_> = run
            .issues()
            .into_iter()
            .filter(|(pc, _)| *pc >= 6)
            .collect();
        let pc = if taken { 8 } else { 6 };
        assert_eq!(
            after,
            vec![(pc, "1111".into()), (pc + 1, "1111".into())],
            "bra.{vote} on {pattern:04b}"
        );
        for t in 0..4 {
            assert_eq!(
                run.reg(t, 3),
                if taken { 2 } else { 1 },
                "bra.{vote} on {pattern:04b}"
            );
        }
        assert_eq!(run.stats().divergent_branches, 0);
        assert_eq!(run.stats().consensual_taken, taken as u64);
        assert_eq!(run.stats().consensual_not_taken, !taken as u64);
    }
}

/// A guard on a consensual branch selects the voters, but every active lane
/// follows the outcome.
#[test]
fn guarded_consensual_branch_counts_only_voters() {
    let src = "
        s2r     r1, %laneid
        setp.lt p2, r1, 2        ; voters: lanes 0, 1
        setp.eq p1, r1, 3        ; p1 only on lane 3, which does not vote
        @p2 bra.none p1, target  ; no voter has p1: taken by all four
        movi    r3, 1
        exit
    target:
        movi    r3, 2
        exit
    ";
    let run = run_asm(src, Setup::default());
    for t in 0..4 {
        assert_eq!(run.reg(t, 3), 2);
    }
}

#[test]
fn barrier_counts_threads_across_warps_and_divergent_arrivals() {
    // Each thread writes its id to shared memory, syncs, then reads its
    // neighbour's. Lanes reach the barrier at different PCs within a warp.
    let src = "
        s2r     r1, %tid
        shl     r2, r1, 2
        st.shared [r2], r1
        and     r3, r1, 1
        setp.eq p1, r3, 0
        @p1 bra even
        bar.sync                  ; odd threads arrive here
        bra     read
    even:
        bar.sync                  ; even threads arrive here
    read:
        add     r4, r1, 1
        s2r     r5, %ntid.x
        setp.ge p2, r4, r5
        @p2 movi r4, 0
        shl     r4, r4, 2
        ld.shared r6, [r4]
        exit
    ";
    let run = run_asm(
        src,
        Setup {
            warps: 2,
            threads: 8,
            ..Setup::default()
        },
    );
    let s = run.stats();
    assert_eq!(s.barriers, 1);
    assert_eq!(s.barrier_arrivals, 8);
    for t in 0..8 {
        assert_eq!(run.reg(t, 6), ((t + 1) % 8) as u32, "thread {t}");
    }
}

#[test]
fn barrier_after_some_threads_exit_is_reported() {
    let src = "
        s2r     r1, %tid
        setp.ge p1, r1, 2
        @p1 exit
        bar.sync
        exit
    ";
    let run = run_asm(src, Setup::default());
    let trap = run.trap();
    assert_eq!(
        trap.cause,
        TrapCause::BarrierNeverCompletes {
            waiting: 2,
            exited: 2,
            threads: 4
        }
    );
    assert_eq!(trap.lanes, 0b0011);
}

#[test]
fn out_of_range_and_misaligned_accesses_trap_with_lanes_pc_and_address() {
    // Lane addresses 2048, 3072, 4096, 5120: lanes 2 and 3 fall outside 4096 bytes.
    let src = "
        s2r     r1, %tid
        shl     r1, r1, 10       ; 0, 1024, 2048, 3072
        add     r1, r1, 4
        ld.global r2, [r1+2044]  ; pc 3
        exit
    ";
    let run = run_asm(src, Setup::default());
    let trap = run.trap();
    assert_eq!(trap.lanes, 0b1100);
    assert_eq!(trap.pc, 3);
    assert_eq!(
        trap.cause,
        TrapCause::AddressOutOfRange {
            space: concord_isa::Space::Global,
            addr: 4096,
            bytes: 4,
            size: 4096
        }
    );
    assert_eq!(
        trap.to_string(),
        "trap in block (0,0,0) warp 0 lane(s) 2-3 at pc 3: global access of 4 byte(s) at address 0x00001000 is outside global memory (4096 bytes)"
    );

    let run = run_asm(
        "s2r r1, %tid\nst.shared.b16 [r1+0], r1\nexit\n",
        Setup::default(),
    );
    assert_eq!(
        run.trap().lanes,
        0b1010,
        "odd addresses are misaligned for 16-bit stores"
    );
}

#[test]
fn running_into_cleared_memory_is_an_invalid_instruction() {
    let run = run_asm("nop\n.word 0\n", Setup::default());
    let trap = run.trap();
    assert_eq!(trap.pc, 1);
    assert!(
        matches!(trap.cause, TrapCause::InvalidInstruction { word: 0, .. }),
        "{trap}"
    );
}

#[test]
fn falling_off_the_program_and_bad_returns_trap() {
    // The last instruction's lanes would continue at pc 1 = the length: the
    // nop traps at its own pc, naming every active lane.
    let run = run_asm("nop\n", Setup::default());
    assert_eq!(
        run.trap().cause,
        TrapCause::NextPcOutOfRange { target: 1, len: 1 }
    );
    assert_eq!((run.trap().pc, run.trap().lanes), (0, 0b1111));

    let run = run_asm("movi r1, 3\nret r1\nexit\nexit\n", Setup::default());
    assert_eq!(run.trap().cause, TrapCause::ReturnAtDepthZero);

    // call_depth_bits = 4 (default): depth 15 is the deepest, so the 16th call traps.
    let run = run_asm("f: call r1, f\n", Setup::default());
    assert_eq!(run.trap().cause, TrapCause::CallDepthOverflow { max: 15 });
    assert_eq!(run.issued(), 16);
}

/// Issue 12 item 12: the PC rule. Every transfer to a PC at or beyond the
/// end of the program traps at the transferring instruction, with the
/// lanes that would go there and the first one's 32-bit target; no PC ever
/// holds such a value, whatever its width.
#[test]
fn control_transfers_outside_the_program_trap_at_the_transfer() {
    let cases: [(&str, &str, u32, u32, u32, u32); 9] = [
        // (what, source, pc, lanes, target, length in words); `li` of a
        // value outside -65536..=65535 takes two words.
        (
            "jmp to 0xffffffff",
            "li r1, 0xffffffff\njmp r1\n",
            1,
            0b1111,
            u32::MAX,
            2,
        ),
        (
            "jmp to 2^16 + 1",
            "li r1, 0x10001\njmp r1\nexit\n",
            2,
            0b1111,
            0x10001,
            4,
        ),
        (
            "jmp of lanes 2 and 3 to the length",
            "s2r r2, %tid\nsetp.ge p1, r2, 2\nmovi r1, 5\n@p1 jmp r1\nexit\n",
            3,
            0b1100,
            5,
            5,
        ),
        (
            "ret to the length",
            "call r1, f\nexit\nf: movi r1, 4\nret r1\n",
            3,
            0b1111,
            4,
            4,
        ),
        (
            "callr to 2^16",
            "li r1, 0x10000\ncallr r2, r1\nexit\n",
            2,
            0b1111,
            0x10000,
            4,
        ),
        // The assembler accepts any target below 65536.
        (
            "call past the end",
            "call r1, 100\nexit\n",
            0,
            0b1111,
            100,
            2,
        ),
        ("bra past the end", "bra 7\nexit\n", 0, 0b1111, 7, 2),
        ("bra.all past the end", "bra.all pt, 2\n", 0, 0b1111, 2, 1),
        // Guard-false lanes of the last instruction fall through.
        (
            "guarded exit at the end",
            "s2r r2, %tid\nsetp.ge p1, r2, 1\n@p1 exit\n",
            2,
            0b0001,
            3,
            3,
        ),
    ];
    for (what, src, pc, lanes, target, len) in cases {
        let run = run_asm(src, Setup::default());
        let trap = run.trap();
        assert_eq!(
            (trap.pc, trap.lanes, &trap.cause),
            (pc, lanes, &TrapCause::NextPcOutOfRange { target, len }),
            "{what}: {trap}"
        );
    }
    let run = run_asm("li r1, 0xffffffff\njmp r1\n", Setup::default());
    assert_eq!(
        run.trap().to_string(),
        "trap in block (0,0,0) warp 0 lane(s) 0-3 at pc 1: next PC 4294967295 (0xffffffff) is outside the program (2 words)"
    );
    // A transfer that stays inside does not trap, the call's link is pc + 1.
    let run = run_asm("call r1, f\nexit\nf: ret r1\n", Setup::default());
    run.stats();
    assert_eq!(run.reg(0, 1), 1);
    // A not-taken consensual branch at the end falls through.
    let run = run_asm("bra.none pt, 0\n", Setup::default());
    assert_eq!(
        (run.trap().pc, &run.trap().cause),
        (0, &TrapCause::NextPcOutOfRange { target: 1, len: 1 })
    );
}

/// Issue 12 item 8: the per-thread stacks. 4 lanes x 1 warp, G = 4096,
/// `.stack 64`: thread t owns [4096 - 64(t+1), 4096 - 64t), the guard zone
/// is [3776, 3840) and everything below 3776 is ordinary memory.
#[test]
fn accesses_outside_the_own_stack_trap_as_stack_overflow() {
    // r2 = the address each lane stores to, r3 = 4096 - 64 * tid (its stack top).
    let prelude = ".stack 64\ns2r r1, %tid\nshl r3, r1, 6\nmovi r4, 4096\nsub r3, r4, r3\n";
    // (what, body, the expected trap's lanes, address and thread)
    type Expect = Option<(u32, u32, u32)>;
    let cases: [(&str, &str, Expect); 7] = [
        (
            "own stack, top word",
            "add r2, r3, -4\nst.global [r2], r1\n",
            None,
        ),
        (
            "own stack, bottom byte",
            "add r2, r3, -64\nst.global.b8 [r2], r1\n",
            None,
        ),
        (
            "own stack by atomics",
            "add r2, r3, -32\natom.global.add r5, [r2], r1\n",
            None,
        ),
        // Lane 0 (thread 0) writes just below its stack: thread 1's top word.
        (
            "neighbour's stack",
            "add r2, r3, -68\nsetp.eq p1, r1, 0\n@p1 st.global [r2], r1\n",
            Some((0b0001, 4028, 0)),
        ),
        // Every lane reads 64 bytes below its own bottom: threads 0-2 hit
        // their neighbours, thread 3 the guard zone.
        (
            "neighbours and the guard zone",
            "add r2, r3, -128\nld.global r5, [r2]\n",
            Some((0b1111, 3968, 0)),
        ),
        // Only lane 3 (thread 3): the first word of the guard zone.
        (
            "guard zone",
            "add r2, r3, -128\nsetp.eq p1, r1, 3\n@p1 ld.global.u16 r5, [r2+62]\n",
            Some((0b1000, 3838, 3)),
        ),
        (
            "below the guard zone",
            "movi r2, 3772\nst.global [r2], r1\n",
            None,
        ),
    ];
    for (what, body, expect) in cases {
        let src = format!("{prelude}{body}exit\n");
        let run = run_asm(&src, Setup::default());
        match expect {
            None => {
                run.stats();
            }
            Some((lanes, addr, thread)) => {
                let trap = run.trap();
                let hi = 4096 - 64 * thread;
                let bytes = if body.contains(".u16") { 2 } else { 4 };
                assert_eq!(trap.lanes, lanes, "{what}: {trap}");
                assert_eq!(
                    trap.cause,
                    TrapCause::StackOverflow {
                        addr,
                        bytes,
                        thread,
                        lo: hi - 64,
                        hi
                    },
                    "{what}: {trap}"
                );
            }
        }
    }
    let run = run_asm(
        &format!("{prelude}add r2, r3, -68\nsetp.eq p1, r1, 0\n@p1 st.global [r2], r1\nexit\n"),
        Setup::default(),
    );
    assert_eq!(
        run.trap().to_string(),
        "trap in block (0,0,0) warp 0 lane(s) 0 at pc 6: stack overflow: global access of 4 byte(s) at address 0x00000fbc is outside thread 0's stack 0x00000fc0..0x00001000"
    );
    // Without `.stack` the same accesses are ordinary.
    let src = "s2r r1, %tid\nshl r3, r1, 6\nmovi r4, 4096\nsub r3, r4, r3\nadd r2, r3, -128\nld.global r5, [r2]\nst.global [r2], r1\nexit\n";
    run_asm(src, Setup::default()).stats();
}

#[test]
fn missing_parameter_traps() {
    let run = run_asm(
        "ldparam r1, 3\nexit\n",
        Setup {
            params: vec![1, 2],
            ..Setup::default()
        },
    );
    assert_eq!(
        run.trap().cause,
        TrapCause::MissingParam {
            index: 3,
            supplied: 2
        }
    );
}

#[test]
fn recursion_reconverges_by_depth() {
    // sum(n) = n + sum(n-1), recursion depth = tid + 1 per lane, with a
    // per-lane stack in global memory.
    let src = "
        s2r     r1, %tid
        add     r10, r1, 1          ; n = tid + 1
        shl     r20, r1, 8          ; per-thread stack area: 256 bytes
        add     r20, r20, 1024
        call    r31, sum
        shl     r2, r1, 2
        st.global [r2], r11
        exit
    sum:                            ; r10 = n -> r11 = n + (n-1) + ... + 1
        setp.eq p1, r10, 0
        @p1 movi r11, 0
        @p1 ret r31
        st.global [r20], r31
        st.global [r20+4], r10
        add     r20, r20, 8
        add     r10, r10, -1
        call    r31, sum
        add     r20, r20, -8
        ld.global r31, [r20]
        ld.global r10, [r20+4]
        add     r11, r11, r10
        ret     r31
    ";
    let run = run_asm(src, Setup::default());
    run.stats();
    for t in 0..4u32 {
        let n = t + 1;
        assert_eq!(run.word(4 * t as usize), n * (n + 1) / 2, "thread {t}");
    }
}

#[test]
fn partial_last_warp_and_multiple_blocks() {
    // 6 threads on 4-lane warps: warp 1 has lanes 2, 3 absent.
    let src = "
        s2r     r1, %tid
        s2r     r2, %ctaid.x
        s2r     r3, %ntid.x
        mul     r4, r2, r3
        add     r4, r4, r1          ; global id
        shl     r5, r4, 2
        st.global [r5], r4
        exit
    ";
    let run = run_asm(
        src,
        Setup {
            warps: 2,
            threads: 6,
            blocks: 3,
            ..Setup::default()
        },
    );
    let s = run.stats();
    assert_eq!(s.blocks, 3);
    assert_eq!(s.threads, 18);
    for g in 0..18u32 {
        assert_eq!(run.word(4 * g as usize), g);
    }
    // Per block: warp 0 full (8 issues x 4 lanes), warp 1 half (8 x 2).
    assert_eq!(s.issued, 3 * 16);
    assert_eq!(s.active_lane_slots, 3 * (8 * 4 + 8 * 2));
}

/// The diagnosis of a watchdog trap, with its warp, lanes and PC.
fn watchdog_report(src: &str, setup: Setup) -> (u32, u32, u32, String) {
    let run = run_asm(src, setup);
    let trap = run.trap();
    let TrapCause::Watchdog { diagnosis, .. } = &trap.cause else {
        panic!("not a watchdog trap: {trap}")
    };
    (trap.warp, trap.lanes, trap.pc, diagnosis.clone())
}

/// Threads 0-1 wait at a barrier that threads 2-3 never reach: they spin on
/// a word nobody writes. The state repeats every turn of the spin, so it is
/// a deadlock, reported with both groups (it used to be "no lane is
/// starved" at pc 0 with no lanes).
#[test]
fn barrier_waiting_for_spinning_threads_is_a_deadlock_naming_both_groups() {
    let src = "
        s2r r1, %tid             ; 0
        setp.lt p1, r1, 2        ; 1
        @!p1 bra spin            ; 2
        bar.sync                 ; 3: threads 0-1 wait here
        exit                     ; 4
    spin:
        ld.global r2, [r0]       ; 5: threads 2-3 spin on word 0
        setp.eq p2, r2, 0        ; 6
        @p2 bra spin             ; 7
        exit                     ; 8
    ";
    let (warp, lanes, pc, diagnosis) = watchdog_report(
        src,
        Setup {
            watchdog: 1000,
            ..Setup::default()
        },
    );
    assert_eq!((warp, lanes, pc), (0, 0b0011, 3));
    assert_eq!(
        diagnosis,
        "deadlock: the state repeats, so the run can never end: warp 0 lanes 0-1 wait at the barrier at pc 3; warp 0 lanes 2-3 run at pcs 5..=7"
    );
}

/// Lane 0 loops 30 000 times while lanes 1-3 wait at the loop exit: a
/// long computation, not a livelock (the loop counter changes the state).
/// Issues: pcs 0-4 once, 3 x 30 000 in the loop, the final `exit` once:
/// 90 006, so the block ends 89 006 after a watchdog of 1000.
#[test]
fn a_long_divergent_loop_is_still_running_not_a_livelock() {
    let src = "
        s2r r1, %laneid          ; 0
        movi r3, 30000           ; 1
        movi r2, 0               ; 2
        setp.ne p1, r1, 0        ; 3
        @p1 bra done             ; 4
    loop:
        add r2, r2, 1            ; 5
        setp.lt p2, r2, r3       ; 6
        @p2 bra loop             ; 7
    done:
        exit                     ; 8
    ";
    let (warp, lanes, pc, diagnosis) = watchdog_report(
        src,
        Setup {
            watchdog: 1000,
            ..Setup::default()
        },
    );
    assert_eq!((warp, lanes, pc), (0, 0b1110, 8));
    assert_eq!(
        diagnosis,
        "still running: over the next 4096, warp 0 lanes 1-3 wait at pc 8; warp 0 lane 0 runs at pcs 5..=7; the block finishes 89006 warp-instructions after the watchdog; raise `watchdog:` in the launch description if this is a long computation"
    );
    let full = run_asm(
        src,
        Setup {
            watchdog: 90_006,
            ..Setup::default()
        },
    );
    assert_eq!(full.issued(), 90_006);
}

#[test]
fn a_loop_without_waiting_lanes_is_an_endless_loop() {
    let (warp, lanes, pc, diagnosis) = watchdog_report(
        "spin: bra spin\n",
        Setup {
            watchdog: 50,
            ..Setup::default()
        },
    );
    assert_eq!((warp, lanes, pc), (0, 0b1111, 0));
    assert_eq!(
        diagnosis,
        "endless loop: the state repeats, so the run can never end: warp 0 lanes 0-3 run at pc 0"
    );
}

/// A loop that reads the clock may behave differently on a later turn even
/// when the rest of the state repeats: no verdict.
#[test]
fn a_loop_that_reads_the_clock_gets_no_verdict() {
    let src = "
    spin:
        s2r r1, %clock           ; 0
        and r1, r1, 0            ; 1
        bra spin                 ; 2
    ";
    let (_, lanes, pc, diagnosis) = watchdog_report(
        src,
        Setup {
            watchdog: 50,
            ..Setup::default()
        },
    );
    assert_eq!((lanes, pc), (0b1111, 0));
    assert_eq!(
        diagnosis,
        "still running: over the next 4096, warp 0 lanes 0-3 run at pcs 0..=2; no state repeated in the 131072 warp-instructions after the watchdog (the kernel reads the clock, so none was looked for); raise `watchdog:` in the launch description if this is a long computation"
    );
}

/// An observer that breaks at the k-th issue ends the run right after it:
/// that instruction executes, nothing issues after it, and the run says it
/// was stopped (not trapped) unless the launch ended there anyway.
#[test]
fn an_observer_that_breaks_stops_the_run_after_that_issue() {
    // Two blocks of one 4-lane warp, 5 issues each: block b stores b + 1
    // at byte 4 * (b + 1) with its 4th issue.
    let src = "
        s2r     r1, %ctaid.x     ; 0
        add     r1, r1, 1        ; 1
        shl     r2, r1, 2        ; 2
        st.global [r2], r1       ; 3
        exit                     ; 4
    ";
    let stop_at = |k| {
        run_asm(
            src,
            Setup {
                blocks: 2,
                stop_at: Some(k),
                ..Setup::default()
            },
        )
    };
    let stopped = |run: &common::Run| match &run.result {
        Err(RunError::Stopped(s)) => *s,
        other => panic!("expected a stopped run, got {other:?}"),
    };

    // At the shl: the store never ran, block 0 never ended.
    let run = stop_at(3);
    let s = stopped(&run);
    assert_eq!((s.issued, s.blocks, s.threads), (3, 0, 0));
    assert_eq!(s.active_lane_slots, 3 * 4);
    assert_eq!(run.trace.len(), 3, "no issue after the break");
    assert_eq!(run.issues().last().unwrap().0, 2);
    assert!(run.regs.is_empty(), "no block_end for a block cut short");
    assert_eq!((run.word(4), run.word(8)), (0, 0));

    // At the store: it executed.
    let run = stop_at(4);
    assert_eq!(stopped(&run).issued, 4);
    assert_eq!((run.word(4), run.word(8)), (1, 0));

    // At block 0's exit: block 0 ended (its registers reported), block 1
    // never issued.
    let run = stop_at(5);
    let s = stopped(&run);
    assert_eq!((s.issued, s.blocks, s.threads), (5, 1, 4));
    assert_eq!(run.trace.len(), 5);
    assert_eq!(run.regs.len(), 1);
    assert_eq!(run.reg(0, 2), 4);
    assert_eq!((run.word(4), run.word(8)), (1, 0));

    // At the launch's last issue: the launch completed.
    let run = stop_at(10);
    let s = run.stats();
    assert_eq!((s.issued, s.blocks, s.threads), (10, 2, 8));
    assert_eq!((run.word(4), run.word(8)), (1, 2));

    // An issue that traps reports the trap, even when the observer broke there.
    let src = "
        movi    r1, 8192         ; 0: past the 4096-byte memory
        ld.global r2, [r1]       ; 1
        exit                     ; 2
    ";
    let run = run_asm(
        src,
        Setup {
            stop_at: Some(2),
            ..Setup::default()
        },
    );
    assert!(
        matches!(
            run.trap().cause,
            TrapCause::AddressOutOfRange { addr: 8192, .. }
        ),
        "{}",
        run.trap()
    );
    assert_eq!((run.trap().pc, run.trap().issued), (1, 2));

    // The break wins over the watchdog that would fire before the next
    // issue; the watchdog's diagnosis window does not call the observer.
    let spin = "
    spin:
        add r1, r1, 1            ; 0
        bra spin                 ; 1
    ";
    let setup = |k| Setup {
        watchdog: 50,
        stop_at: Some(k),
        ..Setup::default()
    };
    let run = run_asm(spin, setup(50));
    assert_eq!(stopped(&run).issued, 50);
    assert_eq!(run.trace.len(), 50);
    let run = run_asm(spin, setup(51));
    assert!(
        matches!(run.trap().cause, TrapCause::Watchdog { limit: 50, .. }),
        "{}",
        run.trap()
    );
    assert_eq!(
        run.trace.len(),
        50,
        "the observer sees no issue of the window"
    );
}
