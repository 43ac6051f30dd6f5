//! The program cases of `isa/tests/func_golden.rs` (the paper goldens:
//! Collange's Table 2 and Listing 1, consensual branches, spin locks,
//! barriers, traps) and `isa/tests/func_instructions.rs` (every instruction
//! under three guards), as launches: shared by the v1 tiers
//! (`tests/cycle_vs_func.rs`) and the Core v2 lock-step tiers
//! (`tests/verilator_v2.rs`).

use concord_isa::config::Arbitration;

/// One program and its launch.
#[derive(Clone)]
pub struct Case {
    pub name: String,
    pub src: String,
    pub block: [u32; 3],
    pub blocks: u32,
    pub params: Vec<u32>,
    pub global: Vec<u8>,
    /// `None`: run under both policies.
    pub policy: Option<Arbitration>,
    /// Single-warp-deterministic programs: compare registers and counters.
    /// Programs whose warps race (spin locks) only compare memory.
    pub deterministic: bool,
    /// Functional-model watchdog (issues).
    pub watchdog: u64,
}

impl Case {
    pub fn new(name: impl Into<String>, src: impl Into<String>) -> Case {
        Case {
            name: name.into(),
            src: src.into(),
            block: [4, 1, 1],
            blocks: 1,
            params: vec![],
            global: vec![0; 4096],
            policy: None,
            deterministic: true,
            watchdog: 100_000,
        }
    }
    pub fn threads(&self) -> u32 {
        self.block.iter().product()
    }
}

// ---------------------------------------------------------------------
// func_golden.rs

pub fn golden_divergence_and_reconvergence() -> Vec<Case> {
    let table2 = "
        s2r     r1, %tid
        setp.ge p1, r1, 2
    A:  add     r2, r2, 1
        @p1 bra C
    B:  add     r3, r3, 1
        bra     D
    C:  add     r4, r4, 1
    D:  add     r5, r5, 1
        exit
    ";
    let listing1 = "
        s2r     r1, %tid
        setp.lt p1, r1, 2
        @p1 call r31, f
after:  add     r2, r2, 1
        exit
f:      add     r3, r3, 1
        ret     r31
    ";
    let loop_trips = "
        s2r     r1, %tid
        add     r1, r1, 1
    body:
        add     r1, r1, -1
        setp.gt p1, r1, 0
        @p1 bra body
    done:
        add     r2, r2, 1
        exit
    ";
    let recursion = "
        s2r     r1, %tid
        add     r10, r1, 1
        shl     r20, r1, 8
        add     r20, r20, 1024
        call    r31, sum
        shl     r2, r1, 2
        st.global [r2], r11
        exit
    sum:
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
    // Lanes 2, 3 wait at pc 7 (depth 0) when the callers reach it at depth
    // 1: only `pc_only` lets them join the callers' group.
    let ahead_of_call = "
        s2r     r1, %tid
        setp.lt p1, r1, 2
        @!p1 bra g
        call    r31, f
        exit
        nop
    f:  add     r3, r3, 1
    g:  add     r4, r4, 1
        @p1 ret r31
        exit
    ";
    vec![
        Case::new("shallow lanes ahead of a call", ahead_of_call),
        Case::new("collange table 2", table2),
        Case::new("collange listing 1", listing1),
        Case::new("loop with per-lane trip counts", loop_trips),
        Case::new("recursion", recursion),
    ]
}

pub fn golden_consensual_branches() -> Vec<Case> {
    let mut cases = Vec::new();
    for vote in ["none", "any", "all"] {
        for pattern in [0b1111, 0b0000, 0b0101] {
            let src = format!(
                "
                s2r     r1, %laneid
                ldparam r2, 0
                shr     r2, r2, r1
                and     r2, r2, 1
                setp.ne p1, r2, 0
                bra.{vote} p1, target
                movi    r3, 1
                exit
            target:
                movi    r3, 2
                exit
            "
            );
            let mut c = Case::new(format!("bra.{vote} on {pattern:04b}"), src);
            c.params = vec![pattern];
            cases.push(c);
        }
    }
    cases.push(Case::new(
        "guarded consensual branch",
        "
        s2r     r1, %laneid
        setp.lt p2, r1, 2
        setp.eq p1, r1, 3
        @p2 bra.none p1, target
        movi    r3, 1
        exit
    target:
        movi    r3, 2
        exit
    ",
    ));
    cases
}

pub fn golden_spin_locks() -> Vec<Case> {
    let naive = "
        ldparam r1, 0
        movi    r2, 1
    spin:
        atom.global.exch r3, [r1], r2
        setp.ne p1, r3, 0
        @p1 bra spin
        ld.global r4, [r1+4]
        add     r4, r4, 1
        st.global [r1+4], r4
        movi    r5, 0
        st.global [r1], r5
        exit
    ";
    let mut c = Case::new("naive spin lock (livelock)", naive);
    c.params = vec![64];
    c.watchdog = 10_000;
    c.policy = Some(Arbitration::DepthPc);
    let naive = c;

    let inside = "
        ldparam r1, 0
        movi    r2, 1
        movi    r5, 0
        pmov    p2, pt
    retry:
        atom.global.exch r3, [r1], r2
        setp.eq p1, r3, 0
        @!p1 bra skip
        ld.global r4, [r1+4]
        add     r4, r4, 1
        st.global [r1+4], r4
        st.global [r1], r5
        pmov    p2, !pt
    skip:
        @p2 bra retry
        exit
    ";
    let mut c = Case::new("spin lock inside the loop", inside);
    c.params = vec![64];
    c.block = [8, 1, 1];
    c.deterministic = false;
    vec![naive, c]
}

pub fn golden_barriers() -> Vec<Case> {
    let across = "
        s2r     r1, %tid
        shl     r2, r1, 2
        st.shared [r2], r1
        and     r3, r1, 1
        setp.eq p1, r3, 0
        @p1 bra even
        bar.sync
        bra     read
    even:
        bar.sync
    read:
        add     r4, r1, 1
        s2r     r5, %ntid.x
        setp.ge p2, r4, r5
        @p2 movi r4, 0
        shl     r4, r4, 2
        ld.shared r6, [r4]
        exit
    ";
    let mut c = Case::new("barrier across warps", across);
    c.block = [8, 1, 1];
    let after_exit = "
        s2r     r1, %tid
        setp.ge p1, r1, 2
        @p1 exit
        bar.sync
        exit
    ";
    vec![c, Case::new("barrier after exits (trap)", after_exit)]
}

pub fn golden_traps() -> Vec<Case> {
    let mut missing = Case::new("missing parameter", "ldparam r1, 3\nexit\n");
    missing.params = vec![1, 2];
    vec![
        Case::new(
            "out of range",
            "
            s2r     r1, %tid
            shl     r1, r1, 10
            add     r1, r1, 4
            ld.global r2, [r1+2044]
            exit
        ",
        ),
        Case::new(
            "misaligned",
            "s2r r1, %tid\nst.shared.b16 [r1+0], r1\nexit\n",
        ),
        Case::new("cleared memory", "nop\n.word 0\n"),
        Case::new("falling off", "nop\n"),
        Case::new("ret at depth 0", "movi r1, 3\nret r1\nexit\nexit\n"),
        Case::new("call depth overflow", "f: call r1, f\n"),
        missing,
    ]
}

/// Issue 12 item 12: a control transfer, or the fall-through of the last
/// instruction, to a PC outside the program traps at the transferring
/// instruction with the 32-bit target on every model (the timed models
/// used to keep 16 bits of it).
pub fn next_pc_outside_the_program() -> Vec<Case> {
    vec![
        Case::new("jmp to 0xffffffff", "li r1, 0xffffffff\njmp r1\n"),
        Case::new("jmp to 2^16 + 1", "li r1, 0x10001\njmp r1\nexit\n"),
        Case::new(
            "jmp of some lanes to the length",
            "s2r r2, %tid\nsetp.ge p1, r2, 2\nmovi r1, 5\n@p1 jmp r1\nexit\n",
        ),
        Case::new(
            "ret to the length",
            "call r1, f\nexit\nf: movi r1, 4\nret r1\n",
        ),
        Case::new("callr to 2^16", "li r1, 0x10000\ncallr r2, r1\nexit\n"),
        Case::new("call past the end", "call r1, 100\nexit\n"),
        Case::new("bra past the end", "bra 7\nexit\n"),
        Case::new("bra.all past the end", "bra.all pt, 2\n"),
        Case::new("bra.none not taken at the end", "bra.none pt, 0\n"),
        Case::new(
            "guarded exit at the end",
            "s2r r2, %tid\nsetp.ge p1, r2, 1\n@p1 exit\n",
        ),
        Case::new("bar.sync at the end", "bar.sync\n"),
        Case::new("store at the end", "li r2, 0x800\nst.global [r2], r2\n"),
        Case::new(
            "a faulting store at the end reports the fault",
            "li r2, 0x801\nst.global [r2], r2\n",
        ),
        Case::new("ldparam at the end", "@!pt ldparam r1, 9\n"),
    ]
}

/// Issue 12 item 8: global accesses outside the thread's own stack (into
/// another thread's stack or the guard zone below the stacks) trap as
/// *stack overflow* on every model. `.stack 8`, G = 4096: thread t owns
/// [4096 - 8(t+1), 4096 - 8t); r3 is the lane's stack top.
pub fn stack_overflow() -> Vec<Case> {
    let prelude = ".stack 8\ns2r r1, %tid\nshl r3, r1, 3\nli r4, 4096\nsub r3, r4, r3\n";
    let case = |name: &str, body: &str| Case::new(name, format!("{prelude}{body}exit\n"));
    let no_stack = |name: &str, body: &str| {
        Case::new(
            name,
            format!("s2r r1, %tid\nshl r3, r1, 3\nli r4, 4096\nsub r3, r4, r3\n{body}exit\n"),
        )
    };
    let below = "add r2, r3, -12\nsetp.eq p1, r1, 3\n@p1 ld.global r5, [r2]\n";
    let mut wide = case(
        "warp 1: own stacks, then a lane into its neighbour's",
        "st.global [r3-4], r1\nld.global.u16 r5, [r3-8]\nsetp.eq p1, r1, 9\n@p1 st.global.b8 [r3-9], r1\n",
    );
    wide.block = [16, 1, 1];
    vec![
        case(
            "own stack",
            "st.global [r3-4], r1\nld.global r5, [r3-8]\nadd r2, r3, -8\natom.global.add r6, [r2], r1\nld.global.s8 r7, [r3-1]\n",
        ),
        case(
            "lane 0 into thread 1's stack",
            "setp.eq p1, r1, 0\n@p1 st.global [r3-12], r1\n",
        ),
        // Thread 3 reads below its stack: the guard zone on 4 lanes x 1
        // warp (the first RTL configuration), thread 4's stack elsewhere.
        case("below the last stack of the block", below),
        case(
            "every lane below its stack, by atomics",
            "add r2, r3, -16\natom.global.exch r5, [r2], r1\n",
        ),
        // Thread 0's byte is past the end of memory: out of range comes first.
        case(
            "above the own stack, thread 0 out of range",
            "ld.global.u8 r5, [r3+3]\n",
        ),
        case(
            "above the own stack",
            "setp.ne p1, r1, 0\n@p1 st.global.b16 [r3+2], r1\n",
        ),
        // 4096 - 257 * 8 = 2040 is the lowest guard address of any
        // configuration here (32 lanes x 8 warps).
        case("below every guard zone", "li r2, 2036\nst.global [r2], r1\nld.global r5, [r2]\n"),
        case("shared memory is not checked", "st.shared [r3-12], r1\n"),
        no_stack("no .stack: the same accesses are ordinary", "st.global [r3-12], r1\nadd r2, r3, -16\natom.global.exch r5, [r2], r1\n"),
        wide,
    ]
}

pub fn golden_partial_warp_and_multiple_blocks() -> Vec<Case> {
    let src = "
        s2r     r1, %tid
        s2r     r2, %ctaid.x
        s2r     r3, %ntid.x
        mul     r4, r2, r3
        add     r4, r4, r1
        shl     r5, r4, 2
        st.global [r5], r4
        exit
    ";
    let mut c = Case::new("partial last warp, 3 blocks", src);
    c.block = [6, 1, 1];
    c.blocks = 3;
    let mut d = Case::new(
        "3-d block",
        "
        s2r r1, %tid.x
        s2r r2, %tid.y
        s2r r3, %tid.z
        s2r r4, %warpid
        s2r r5, %laneid
        s2r r6, %nwarps
        s2r r7, %tid
        s2r r8, %ctaid.x
        s2r r9, %nctaid.x
        s2r r10, %warpsize
        exit
    ",
    );
    d.block = [2, 3, 2];
    d.blocks = 2;
    vec![c, d]
}

// ---------------------------------------------------------------------
// func_instructions.rs

const SENTINEL: u32 = 0xDEAD;
const GUARDS: [&str; 3] = ["", "@p1 ", "@!pt "];
const MINUS_10: u32 = 0xFFFF_FFF6;

/// r1 = a, r2 = b, r3 = SENTINEL, p1 = lanes {0, 2, ...}, then `body`, exit.
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

fn guard_last(guard: &str, snippet: &str) -> String {
    match snippet.rsplit_once('\n') {
        Some((setup, last)) => format!("{setup}\n{guard}{last}"),
        None => format!("{guard}{snippet}"),
    }
}

/// The instruction under each guard, p3 starting both ways.
fn guarded(a: u32, b: u32, body: &str) -> Vec<Case> {
    let mut out = Vec::new();
    for guard in GUARDS {
        for p3 in [false, true] {
            let src = program(a, b, p3, &guard_last(guard, body));
            out.push(instr_case(format!("`{guard}{body}` p3={p3}"), src));
        }
    }
    out
}

/// The launch of func_instructions.rs: 4 threads, params [7, 8], global
/// bytes 0x100..0x200 holding their own low address byte.
fn instr_case(name: String, src: String) -> Case {
    let mut c = Case::new(name, src);
    c.params = vec![7, 8];
    for (i, b) in c.global.iter_mut().enumerate().take(512).skip(256) {
        *b = i as u8;
    }
    c
}

pub fn instructions_alu() -> Vec<Case> {
    let mut cases = Vec::new();
    for op in [
        "add", "sub", "mul", "mulhi", "mulhiu", "and", "or", "xor", "shl", "shr", "sra", "min",
        "max", "minu", "maxu",
    ] {
        cases.extend(guarded(MINUS_10, 3, &format!("{op} r3, r1, r2")));
    }
    for op in ["add", "mul", "and", "or", "xor", "shl", "shr", "sra"] {
        cases.extend(guarded(MINUS_10, 0, &format!("{op} r3, r1, 3")));
    }
    cases.extend(guarded(0, 0, "add r3, r1, -2048"));
    cases.extend(guarded(0x1234_5678, 0, "and r3, r1, -1"));
    for body in [
        "movi r3, -5",
        "movi r3, 65535",
        "movhi r3, 0x1234",
        "mov r3, r1",
        "li r3, 0x89ABCDEF",
    ] {
        cases.extend(guarded(77, 0, body));
    }
    cases
}

pub fn instructions_predicates() -> Vec<Case> {
    let mut cases = Vec::new();
    for cmp in [
        "eq", "ne", "lt", "le", "gt", "ge", "ltu", "leu", "gtu", "geu",
    ] {
        cases.extend(guarded(MINUS_10, 3, &format!("setp.{cmp} p3, r1, r2")));
        cases.extend(guarded(MINUS_10, 0, &format!("setp.{cmp} p3, r1, 3")));
    }
    cases.extend(guarded(0xFFFF_FE00, 0, "setp.eq p3, r1, -512"));
    for body in [
        "pand p3, pt, !pt",
        "pand p3, pt, pt",
        "por p3, !pt, pt",
        "por p3, !pt, !pt",
        "pxor p3, pt, pt",
        "pxor p3, pt, !pt",
        "pmov p3, !pt",
        "pand p3, p1, !p3",
        "sel r3, p1, r1, r2",
        "sel r3, !p1, r1, r2",
    ] {
        cases.extend(guarded(11, 22, body));
    }
    cases.push(instr_case(
        "writes to pt are discarded".into(),
        program(0, 0, false, "pand pt, !pt, !pt\n@pt movi r3, 1"),
    ));
    cases
}

pub fn instructions_special_registers() -> Vec<Case> {
    let mut cases = Vec::new();
    for sreg in [
        "tid.x", "tid", "laneid", "tid.y", "tid.z", "ntid.x", "ntid.y", "ntid.z", "ctaid.x",
        "ctaid.y", "ctaid.z", "nctaid.x", "nctaid.y", "nctaid.z", "warpid", "nwarps", "warpsize",
        "clockhi",
    ] {
        cases.extend(guarded(0, 0, &format!("s2r r3, %{sreg}")));
    }
    cases.extend(guarded(0, 0, "ldparam r3, 1"));
    cases
}

pub fn instructions_loads_and_stores() -> Vec<Case> {
    let mut cases = Vec::new();
    for body in [
        "li r4, 0x180\nld.global.u8 r3, [r4+1]",
        "li r4, 0x180\nld.global.s8 r3, [r4+1]",
        "li r4, 0x180\nld.global.u16 r3, [r4+2]",
        "li r4, 0x180\nld.global.s16 r3, [r4+2]",
        "li r4, 0x180\nld.global.b32 r3, [r4+4]",
        "li r4, 0x184\nld.global r3, [r4-4]",
        // `.shared`: the launch zeroes the bytes a case reads before any
        // lane writes them (docs/isa.md, "Initial state"; a core keeps
        // the previous launch's shared memory otherwise).
        ".shared 68\nli r4, 64\nld.shared r3, [r4]",
        // Per-lane addresses: lanes in different lines / rows replay.
        "shl r4, r30, 6\nadd r4, r4, 0x100\nld.global.s8 r3, [r4+0x81]",
        "shl r4, r30, 2\nadd r4, r4, 0x100\nld.global.u16 r3, [r4+2]",
    ] {
        cases.extend(guarded(0, 0, body));
    }
    for guard in GUARDS {
        let body = format!(
            ".shared 128\nshl r5, r30, 2\nli r4, 0x800\nadd r4, r4, r5\nli r6, 0x11223344\n\
             {guard}st.global.b8 [r4], r6\n{guard}st.global.b16 [r4+0x40], r6\n{guard}st.global [r4+0x80], r6\n\
             {guard}st.shared.b16 [r5+2], r6\nld.shared r7, [r5]"
        );
        cases.push(instr_case(
            format!("stores of every width `{guard}`"),
            program(0, 0, false, &body),
        ));
        // Stores whose lanes spread over shared rows and global lines.
        let body = format!(
            ".shared 1024\nshl r5, r30, 5\nli r4, 0x800\nadd r4, r4, r5\nadd r6, r30, 0x51\n\
             {guard}st.global.b8 [r4+3], r6\n{guard}st.shared.b16 [r5+6], r6\n\
             {guard}st.shared.b8 [r5+1], r6\nld.shared r7, [r5+4]\nld.global r8, [r4]"
        );
        cases.push(instr_case(
            format!("spread stores `{guard}`"),
            program(0, 0, false, &body),
        ));
    }
    cases.push(instr_case(
        "same-address stores".into(),
        program(
            0,
            0,
            false,
            "li r4, 0x800\nst.global [r4], r30\nst.shared.b8 [r4+1], r30\nst.shared [r4], r30",
        ),
    ));
    cases
}

pub fn instructions_atomics() -> Vec<Case> {
    let mut cases = Vec::new();
    for guard in GUARDS {
        let body = format!("li r4, 0x800\nadd r5, r30, 1\n{guard}atom.global.add r3, [r4], r5");
        cases.push(instr_case(
            format!("atom.add `{guard}`"),
            program(0, 0, false, &body),
        ));
    }
    for op in ["exch", "min", "max", "minu", "maxu", "and", "or", "xor"] {
        for space in ["global", "shared"] {
            let body = format!(
                "li r4, 0x800\nli r6, 6\nst.{space} [r4], r6\nadd r5, r30, 1\natom.{space}.{op} r3, [r4], r5"
            );
            cases.push(instr_case(
                format!("atom.{space}.{op}"),
                program(0, 0, false, &body),
            ));
        }
    }
    cases.push(instr_case(
        "shared atomics".into(),
        program(
            0,
            0,
            false,
            ".shared 20\nli r4, 16\natom.shared.add r3, [r4], r30\nld.shared r7, [r4]",
        ),
    ));
    // Different addresses: served lowest address first.
    cases.push(instr_case(
        "atomics on per-lane words".into(),
        program(
            0,
            0,
            false,
            ".shared 1796\nsub r4, r0, r30\nshl r4, r4, 2\nadd r4, r4, 0x700\natom.global.add r3, [r4], r30\natom.shared.or r5, [r4], r30",
        ),
    ));
    cases
}

pub fn instructions_votes() -> Vec<Case> {
    let mut cases = Vec::new();
    for guard in GUARDS {
        cases.push(instr_case(
            format!("votes `{guard}`"),
            program(
                0,
                0,
                false,
                &format!("{guard}vote.any p3, p1\n{guard}vote.all p4, p1\n{guard}vote.ballot r3, p1\n{guard}vote.all p5, pt"),
            ),
        ));
    }
    cases
}

pub fn instructions_control() -> Vec<Case> {
    let mut cases = Vec::new();
    let bodies = [
        "{g}bra over\nmovi r3, 1\nover:",
        "li r8, over\n{g}jmp r8\nmovi r3, 1\nover:",
        "{g}exit\nmovi r3, 1",
        "{g}call r9, fn\nbra over\nfn: movi r10, 5\nret r9\nover:",
        "li r8, fn\n{g}callr r9, r8\nbra over\nfn: movi r10, 5\nret r9\nover:",
        "call r9, fn\nbra over\nfn: {g}ret r9\nmovi r3, 1\nret r9\nover:",
        "{g}bar.sync\n{g}nop\nmovi r3, 1",
    ];
    for body in bodies {
        for guard in GUARDS {
            let src = program(0, 0, false, &body.replace("{g}", guard));
            cases.push(instr_case(format!("`{body}` with `{guard}`"), src));
        }
    }
    for vote in ["none", "any", "all"] {
        for guard in GUARDS {
            let body = format!("{guard}bra.{vote} p3, over\nmovi r3, 1\nover:");
            cases.push(instr_case(body.clone(), program(0, 0, false, &body)));
        }
    }
    cases
}
