//! The reference interpreter on hand-built kernels. Expected memory comes
//! from hand calculation or a plain host computation, never from the
//! interpreter.

use concord_compiler::interp::{
    run, InterpError, InterpLaunch, InterpOptions, InterpStats, MemFault,
};
use concord_compiler::ir::{
    BinaryOp, Block, BlockCall, FuncId, FuncKind, Function, InstData, MemSpace, Module, StackSlot,
    Type, UnaryOp, Value, VoteOp,
};
use concord_isa::instr::{AtomOp, Cmp, LoadWidth, SpecialReg, StoreWidth};

// ---------------------------------------------------------------- builder

/// A thin layer over the `Function` API that keeps the fixtures short.
struct Builder {
    f: Function,
    cur: Block,
}

impl Builder {
    fn kernel(name: &str) -> Builder {
        let mut f = Function::new(name, FuncKind::Kernel);
        let cur = f.add_block();
        Builder { f, cur }
    }

    /// A device function; returns the builder and its entry parameters.
    fn device(name: &str, params: &[Type], ret: Option<Type>) -> (Builder, Vec<Value>) {
        let mut f = Function::new(name, FuncKind::Device);
        f.params = params.to_vec();
        f.ret = ret;
        let cur = f.add_block();
        let args = params.iter().map(|&t| f.add_block_param(cur, t)).collect();
        (Builder { f, cur }, args)
    }

    fn block(&mut self) -> Block {
        self.f.add_block()
    }

    fn param(&mut self, b: Block, ty: Type) -> Value {
        self.f.add_block_param(b, ty)
    }

    fn at(&mut self, b: Block) {
        self.cur = b;
    }

    fn ins(&mut self, data: InstData, ty: Type) -> Value {
        let i = self.f.append_inst(self.cur, data, Some(ty));
        self.f.inst_result(i).unwrap()
    }

    fn effect(&mut self, data: InstData) {
        self.f.append_inst(self.cur, data, None);
    }

    fn iconst(&mut self, imm: i32) -> Value {
        self.ins(InstData::Iconst { imm }, Type::I32)
    }

    fn bconst(&mut self, imm: bool) -> Value {
        self.ins(InstData::Bconst { imm }, Type::I1)
    }

    fn special(&mut self, reg: SpecialReg) -> Value {
        self.ins(InstData::Special { reg }, Type::I32)
    }

    fn kparam(&mut self, index: u32) -> Value {
        self.ins(InstData::Param { index }, Type::I32)
    }

    fn bin(&mut self, op: BinaryOp, a: Value, b: Value) -> Value {
        let ty = self.f.value_type(a);
        self.ins(InstData::Binary { op, args: [a, b] }, ty)
    }

    fn unary(&mut self, op: UnaryOp, arg: Value) -> Value {
        let ty = if op == UnaryOp::Not {
            self.f.value_type(arg)
        } else {
            Type::I32
        };
        self.ins(InstData::Unary { op, arg }, ty)
    }

    fn icmp(&mut self, cmp: Cmp, a: Value, b: Value) -> Value {
        self.ins(InstData::Icmp { cmp, args: [a, b] }, Type::I1)
    }

    /// `base + 4 * index`
    fn word_addr(&mut self, base: Value, index: Value) -> Value {
        let two = self.iconst(2);
        let off = self.bin(BinaryOp::Shl, index, two);
        self.bin(BinaryOp::Add, base, off)
    }

    fn load(&mut self, space: MemSpace, width: LoadWidth, addr: Value, offset: i32) -> Value {
        self.ins(
            InstData::Load {
                space,
                width,
                addr,
                offset,
            },
            Type::I32,
        )
    }

    fn store(
        &mut self,
        space: MemSpace,
        width: StoreWidth,
        value: Value,
        addr: Value,
        offset: i32,
    ) {
        self.effect(InstData::Store {
            space,
            width,
            value,
            addr,
            offset,
        })
    }

    fn atomic(&mut self, space: MemSpace, op: AtomOp, addr: Value, value: Value) -> Value {
        self.ins(
            InstData::Atomic {
                space,
                op,
                addr,
                value,
            },
            Type::I32,
        )
    }

    fn vote(&mut self, op: VoteOp, arg: Value) -> Value {
        let ty = if op == VoteOp::Ballot {
            Type::I32
        } else {
            Type::I1
        };
        self.ins(InstData::Vote { op, arg }, ty)
    }

    fn barrier(&mut self) {
        self.effect(InstData::Barrier)
    }

    fn call(&mut self, func: FuncId, args: Vec<Value>) -> Value {
        self.ins(InstData::Call { func, args }, Type::I32)
    }

    fn jump(&mut self, block: Block, args: Vec<Value>) {
        self.effect(InstData::Jump {
            dest: BlockCall { block, args },
        })
    }

    fn brif(&mut self, cond: Value, then_block: Block, then_args: Vec<Value>, else_block: Block) {
        self.effect(InstData::Brif {
            cond,
            then_dest: BlockCall {
                block: then_block,
                args: then_args,
            },
            else_dest: BlockCall::new(else_block),
        })
    }

    fn ret(&mut self, value: Option<Value>) {
        self.effect(InstData::Return { value })
    }

    /// `tid.x + ctaid.x * ntid.x`
    fn global_index(&mut self) -> Value {
        let tid = self.special(SpecialReg::TidX);
        let ctaid = self.special(SpecialReg::CtaidX);
        let ntid = self.special(SpecialReg::NtidX);
        let base = self.bin(BinaryOp::Mul, ctaid, ntid);
        self.bin(BinaryOp::Add, base, tid)
    }
}

fn module_with(kernel: Builder) -> (Module, FuncId) {
    let mut m = Module::default();
    let k = m.add_func(kernel.f);
    (m, k)
}

fn launch(grid: u32, block: u32, params: Vec<u32>) -> InterpLaunch {
    InterpLaunch {
        grid: [grid, 1, 1],
        block: [block, 1, 1],
        params,
        lanes: 8,
        shared_memory_bytes: 1024,
    }
}

fn write_words(mem: &mut [u8], addr: u32, words: &[u32]) {
    for (i, w) in words.iter().enumerate() {
        let at = addr as usize + 4 * i;
        mem[at..at + 4].copy_from_slice(&w.to_le_bytes());
    }
}

fn read_words(mem: &[u8], addr: u32, n: usize) -> Vec<u32> {
    (0..n)
        .map(|i| {
            let at = addr as usize + 4 * i;
            u32::from_le_bytes(mem[at..at + 4].try_into().unwrap())
        })
        .collect()
}

fn run_ok(m: &Module, k: FuncId, l: &InterpLaunch, mem: &mut [u8]) -> InterpStats {
    match run(m, k, l, mem, &InterpOptions::default()) {
        Ok(stats) => stats,
        Err(e) => panic!("run failed: {e}"),
    }
}

// ---------------------------------------------------------------- kernels

/// `c[i] = a[i] + b[i]` for `i < n` (params: a, b, c, n).
fn vecadd() -> Builder {
    let mut k = Builder::kernel("vecadd");
    let body = k.block();
    let exit = k.block();
    let i = k.global_index();
    let n = k.kparam(3);
    let inside = k.icmp(Cmp::Lt, i, n);
    k.brif(inside, body, vec![], exit);
    k.at(body);
    let a = k.kparam(0);
    let b = k.kparam(1);
    let c = k.kparam(2);
    let pa = k.word_addr(a, i);
    let pb = k.word_addr(b, i);
    let pc = k.word_addr(c, i);
    let x = k.load(MemSpace::Global, LoadWidth::B32, pa, 0);
    let y = k.load(MemSpace::Global, LoadWidth::B32, pb, 0);
    let s = k.bin(BinaryOp::Add, x, y);
    k.store(MemSpace::Global, StoreWidth::B32, s, pc, 0);
    k.jump(exit, vec![]);
    k.at(exit);
    k.ret(None);
    k
}

#[test]
fn vecadd_adds_the_covered_elements_only() {
    let (m, k) = module_with(vecadd());
    let mut mem = vec![0u8; 4096];
    let n = 20;
    let a: Vec<u32> = (0..24).map(|i| i * 3).collect();
    let b: Vec<u32> = (0..24).map(|i| 1000 - i).collect();
    write_words(&mut mem, 0x100, &a);
    write_words(&mut mem, 0x200, &b);
    write_words(&mut mem, 0x300, &[0xdead_beef; 24]);
    let stats = run_ok(&m, k, &launch(3, 8, vec![0x100, 0x200, 0x300, n]), &mut mem);
    let want: Vec<u32> = (0..24)
        .map(|i| {
            if i < n as usize {
                a[i] + b[i]
            } else {
                0xdead_beef
            }
        })
        .collect();
    assert_eq!(read_words(&mem, 0x300, 24), want);
    assert_eq!(stats.blocks, 3);
    assert_eq!(stats.threads, 24);
    // Per thread: 8 instructions up to the brif; covered threads run 17
    // more in the body; every thread ends with the exit block's return.
    assert_eq!(stats.instructions, 20 * (8 + 17 + 1) + 4 * (8 + 1));
    assert_eq!(stats.per_function, vec![stats.instructions]);
}

/// Each block sums its 32 inputs by a shared-memory tree reduction:
/// `out[ctaid] = sum(in[ctaid*32 .. ctaid*32+32])` (params: in, out).
fn tree_reduction(m: &mut Module) -> Builder {
    let tile = m.add_shared("tile", 128, 4);
    let mut k = Builder::kernel("reduce");
    let head = k.block();
    let step = k.block();
    let after_step = k.block();
    let done = k.block();
    let write = k.block();
    let exit = k.block();

    let tid = k.special(SpecialReg::TidX);
    let i = k.global_index();
    let input = k.kparam(0);
    let pi = k.word_addr(input, i);
    let x = k.load(MemSpace::Global, LoadWidth::B32, pi, 0);
    let base = k.ins(InstData::SharedAddr { var: tile }, Type::I32);
    let mine = k.word_addr(base, tid);
    k.store(MemSpace::Shared, StoreWidth::B32, x, mine, 0);
    k.barrier();
    let sixteen = k.iconst(16);
    k.jump(head, vec![sixteen]);

    // head(s): while s > 0
    k.at(head);
    let s = k.param(head, Type::I32);
    let zero = k.iconst(0);
    let more = k.icmp(Cmp::Gt, s, zero);
    k.brif(more, step, vec![], done);

    // step: if tid < s { tile[tid] += tile[tid + s] }; barrier; s >>= 1
    k.at(step);
    let active = k.icmp(Cmp::Lt, tid, s);
    let add = k.block();
    k.brif(active, add, vec![], after_step);
    k.at(add);
    let other_index = k.bin(BinaryOp::Add, tid, s);
    let other = k.word_addr(base, other_index);
    let a = k.load(MemSpace::Shared, LoadWidth::B32, mine, 0);
    let b = k.load(MemSpace::Shared, LoadWidth::B32, other, 0);
    let sum = k.bin(BinaryOp::Add, a, b);
    k.store(MemSpace::Shared, StoreWidth::B32, sum, mine, 0);
    k.jump(after_step, vec![]);
    k.at(after_step);
    k.barrier();
    let one = k.iconst(1);
    let half = k.bin(BinaryOp::LShr, s, one);
    k.jump(head, vec![half]);

    k.at(done);
    let zero2 = k.iconst(0);
    let first = k.icmp(Cmp::Eq, tid, zero2);
    k.brif(first, write, vec![], exit);
    k.at(write);
    let total = k.load(MemSpace::Shared, LoadWidth::B32, base, 0);
    let out = k.kparam(1);
    let ctaid = k.special(SpecialReg::CtaidX);
    let po = k.word_addr(out, ctaid);
    k.store(MemSpace::Global, StoreWidth::B32, total, po, 0);
    k.jump(exit, vec![]);
    k.at(exit);
    k.ret(None);
    k
}

#[test]
fn shared_tree_reduction_across_four_warps() {
    let mut m = Module::default();
    let kb = tree_reduction(&mut m);
    let k = m.add_func(kb.f);
    let mut mem = vec![0u8; 4096];
    let input: Vec<u32> = (0..64u32).map(|i| i * i + 7).collect();
    write_words(&mut mem, 0x100, &input);
    let stats = run_ok(&m, k, &launch(2, 32, vec![0x100, 0x800]), &mut mem);
    let want: Vec<u32> = input.chunks(32).map(|c| c.iter().sum()).collect();
    assert_eq!(read_words(&mem, 0x800, 2), want);
    // Per block: the barrier after the loads, then one per step (s = 16, 8,
    // 4, 2, 1).
    assert_eq!(stats.barriers, 2 * 6);
}

#[test]
fn votes_in_uniform_flow() {
    // out[tid] = ballot(tid % 3 == 0); out[16 + tid] = any(tid == 9);
    // out[32 + tid] = all(tid < 10). 12 threads, warps of 8: warp 1 holds
    // threads 8..11 in lanes 0..3.
    let mut k = Builder::kernel("votes");
    let tid = k.special(SpecialReg::TidX);
    let three = k.iconst(3);
    let rem = k.bin(BinaryOp::URem, tid, three);
    let zero = k.iconst(0);
    let p = k.icmp(Cmp::Eq, rem, zero);
    let ballot = k.vote(VoteOp::Ballot, p);
    let nine = k.iconst(9);
    let is9 = k.icmp(Cmp::Eq, tid, nine);
    let any = k.vote(VoteOp::Any, is9);
    let ten = k.iconst(10);
    let lt10 = k.icmp(Cmp::Lt, tid, ten);
    let all = k.vote(VoteOp::All, lt10);
    let out = k.kparam(0);
    let at = k.word_addr(out, tid);
    k.store(MemSpace::Global, StoreWidth::B32, ballot, at, 0);
    let any_i = k.unary(UnaryOp::BoolToInt, any);
    k.store(MemSpace::Global, StoreWidth::B32, any_i, at, 64);
    let all_i = k.unary(UnaryOp::BoolToInt, all);
    k.store(MemSpace::Global, StoreWidth::B32, all_i, at, 128);
    k.ret(None);
    let (m, k) = module_with(k);
    let mut mem = vec![0xffu8; 1024];
    let stats = run_ok(&m, k, &launch(1, 12, vec![0x100]), &mut mem);
    // Warp 0: threads 0, 3, 6 -> lanes 0, 3, 6 -> 0b0100_1001.
    // Warp 1: thread 9 -> lane 1 -> 0b10.
    let mut want = vec![0x49u32; 8];
    want.extend([2; 4]);
    assert_eq!(read_words(&mem, 0x100, 12), want);
    // any(tid == 9): false in warp 0, true in warp 1.
    let mut want_any = vec![0u32; 8];
    want_any.extend([1; 4]);
    assert_eq!(read_words(&mem, 0x140, 12), want_any);
    // all(tid < 10): true in warp 0, false in warp 1 (threads 10, 11).
    let mut want_all = vec![1u32; 8];
    want_all.extend([0; 4]);
    assert_eq!(read_words(&mem, 0x180, 12), want_all);
    assert_eq!(stats.votes, 3 * 2);
}

#[test]
fn exited_threads_do_not_vote() {
    // Threads 5.. exit; the others of warp 0 ballot on `true`.
    let mut k = Builder::kernel("partial");
    let body = k.block();
    let exit = k.block();
    let tid = k.special(SpecialReg::TidX);
    let five = k.iconst(5);
    let low = k.icmp(Cmp::Lt, tid, five);
    k.brif(low, body, vec![], exit);
    k.at(body);
    let t = k.bconst(true);
    let ballot = k.vote(VoteOp::Ballot, t);
    let out = k.kparam(0);
    let at = k.word_addr(out, tid);
    k.store(MemSpace::Global, StoreWidth::B32, ballot, at, 0);
    k.jump(exit, vec![]);
    k.at(exit);
    k.ret(None);
    let (m, k) = module_with(k);
    let mut mem = vec![0u8; 1024];
    run_ok(&m, k, &launch(1, 8, vec![0x100]), &mut mem);
    assert_eq!(read_words(&mem, 0x100, 5), vec![0b1_1111; 5]);
}

#[test]
fn divergent_vote_is_an_error() {
    // Threads 0, 1 vote in one block, the others at another vote.
    let mut k = Builder::kernel("divergent");
    let left = k.block();
    let right = k.block();
    let exit = k.block();
    let tid = k.special(SpecialReg::TidX);
    let two = k.iconst(2);
    let low = k.icmp(Cmp::Lt, tid, two);
    k.brif(low, left, vec![], right);
    k.at(left);
    let a = k.vote(VoteOp::Any, low);
    let _ = a;
    k.jump(exit, vec![]);
    k.at(right);
    let b = k.vote(VoteOp::Any, low);
    let _ = b;
    k.jump(exit, vec![]);
    k.at(exit);
    k.ret(None);
    let (m, k) = module_with(k);
    let mut mem = vec![0u8; 64];
    let err = run(
        &m,
        k,
        &launch(1, 8, vec![]),
        &mut mem,
        &InterpOptions::default(),
    )
    .unwrap_err();
    match &err {
        InterpError::DivergentVote { thread, at, reason } => {
            assert_eq!(thread.tid, 0);
            assert_eq!(at.block, left);
            assert!(reason.contains("thread 2"), "{reason}");
            assert!(reason.contains("another vote"), "{reason}");
        }
        other => panic!("expected a divergent vote, got {other}"),
    }
    assert!(err.to_string().contains("divergent vote"), "{err}");
}

#[test]
fn vote_against_barrier_is_a_divergent_vote() {
    // Thread 0 waits at a barrier while the rest of its warp votes.
    let mut k = Builder::kernel("vote_vs_barrier");
    let left = k.block();
    let right = k.block();
    let exit = k.block();
    let tid = k.special(SpecialReg::TidX);
    let zero = k.iconst(0);
    let first = k.icmp(Cmp::Eq, tid, zero);
    k.brif(first, left, vec![], right);
    k.at(left);
    k.barrier();
    k.jump(exit, vec![]);
    k.at(right);
    k.vote(VoteOp::All, first);
    k.barrier();
    k.jump(exit, vec![]);
    k.at(exit);
    k.ret(None);
    let (m, k) = module_with(k);
    let mut mem = vec![0u8; 64];
    let err = run(
        &m,
        k,
        &launch(1, 4, vec![]),
        &mut mem,
        &InterpOptions::default(),
    )
    .unwrap_err();
    match &err {
        InterpError::DivergentVote { thread, reason, .. } => {
            assert_eq!(thread.tid, 1);
            assert!(
                reason.contains("thread 0 of the warp waits at a barrier"),
                "{reason}"
            );
        }
        other => panic!("expected a divergent vote, got {other}"),
    }
}

#[test]
fn barrier_after_an_exit_can_never_complete() {
    let mut k = Builder::kernel("deadlock");
    let wait = k.block();
    let exit = k.block();
    let tid = k.special(SpecialReg::TidX);
    let zero = k.iconst(0);
    let first = k.icmp(Cmp::Eq, tid, zero);
    k.brif(first, exit, vec![], wait);
    k.at(wait);
    k.barrier();
    k.jump(exit, vec![]);
    k.at(exit);
    k.ret(None);
    let (m, k) = module_with(k);
    let mut mem = vec![0u8; 64];
    let err = run(
        &m,
        k,
        &launch(1, 16, vec![]),
        &mut mem,
        &InterpOptions::default(),
    )
    .unwrap_err();
    match &err {
        InterpError::BarrierNeverCompletes {
            waiting,
            exited,
            threads,
            first_waiting,
            ..
        } => {
            assert_eq!((*waiting, *exited, *threads), (15, 1, 16));
            assert_eq!(first_waiting.block, wait);
            assert_eq!(first_waiting.text.trim(), "barrier");
        }
        other => panic!("expected a barrier error, got {other}"),
    }
    assert!(
        err.to_string().contains("barrier can never complete"),
        "{err}"
    );
}

#[test]
fn atomic_histogram_in_global_and_shared_memory() {
    // bins[data[i] % 8] += 1 with a global atomic; also a per-block shared
    // count of all elements, added to total at the end by thread 0.
    let mut m = Module::default();
    let count = m.add_shared("count", 4, 4);
    let mut k = Builder::kernel("histogram");
    let publish = k.block();
    let exit = k.block();
    let i = k.global_index();
    let data = k.kparam(0);
    let pd = k.word_addr(data, i);
    let x = k.load(MemSpace::Global, LoadWidth::B32, pd, 0);
    let seven = k.iconst(7);
    let bin = k.bin(BinaryOp::And, x, seven);
    let bins = k.kparam(1);
    let pb = k.word_addr(bins, bin);
    let one = k.iconst(1);
    k.atomic(MemSpace::Global, AtomOp::Add, pb, one);
    let c = k.ins(InstData::SharedAddr { var: count }, Type::I32);
    k.atomic(MemSpace::Shared, AtomOp::Add, c, one);
    k.barrier();
    let tid = k.special(SpecialReg::TidX);
    let zero = k.iconst(0);
    let first = k.icmp(Cmp::Eq, tid, zero);
    k.brif(first, publish, vec![], exit);
    k.at(publish);
    let n = k.load(MemSpace::Shared, LoadWidth::B32, c, 0);
    let total = k.kparam(2);
    k.atomic(MemSpace::Global, AtomOp::Add, total, n);
    k.jump(exit, vec![]);
    k.at(exit);
    k.ret(None);
    let k = m.add_func(k.f);

    let data: Vec<u32> = (0..48u32).map(|i| (i * 37 + 11) ^ (i >> 2)).collect();
    let mut mem = vec![0u8; 4096];
    write_words(&mut mem, 0x100, &data);
    run_ok(&m, k, &launch(3, 16, vec![0x100, 0x400, 0x500]), &mut mem);
    let mut want = [0u32; 8];
    for x in &data {
        want[(x & 7) as usize] += 1;
    }
    assert_eq!(read_words(&mem, 0x400, 8), want.to_vec());
    assert_eq!(read_words(&mem, 0x500, 1), vec![48]);
}

/// `fact(n) = n <= 1 ? 1 : n * fact(n - 1)`
fn factorial(m: &mut Module) -> FuncId {
    let id = FuncId::new(m.funcs.len());
    let (mut f, args) = Builder::device("fact", &[Type::I32], Some(Type::I32));
    let n = args[0];
    let base = f.block();
    let rec = f.block();
    let one = f.iconst(1);
    let small = f.icmp(Cmp::Le, n, one);
    f.brif(small, base, vec![], rec);
    f.at(base);
    f.ret(Some(one));
    f.at(rec);
    let n1 = f.bin(BinaryOp::Sub, n, one);
    let r = f.call(id, vec![n1]);
    let p = f.bin(BinaryOp::Mul, n, r);
    f.ret(Some(p));
    m.add_func(f.f)
}

#[test]
fn recursion_computes_factorials() {
    let mut m = Module::default();
    let fact = factorial(&mut m);
    let mut k = Builder::kernel("facts");
    let tid = k.special(SpecialReg::TidX);
    let r = k.call(fact, vec![tid]);
    let out = k.kparam(0);
    let at = k.word_addr(out, tid);
    k.store(MemSpace::Global, StoreWidth::B32, r, at, 0);
    k.ret(None);
    let k = m.add_func(k.f);
    let mut mem = vec![0u8; 1024];
    let stats = run_ok(&m, k, &launch(1, 13, vec![0x100]), &mut mem);
    let want: Vec<u32> = (0..13u32).map(|n| (1..=n.max(1)).product()).collect();
    assert_eq!(read_words(&mem, 0x100, 13), want);
    // Thread 12 calls fact(12) .. fact(1): depth 12.
    assert_eq!(stats.max_call_depth, 12);
    assert!(stats.per_function[fact.index()] > 0);
}

#[test]
fn call_depth_limit_stops_infinite_recursion() {
    let mut m = Module::default();
    let id = FuncId::new(0);
    let (mut f, args) = Builder::device("forever", &[Type::I32], Some(Type::I32));
    let r = f.call(id, vec![args[0]]);
    f.ret(Some(r));
    m.add_func(f.f);
    let mut k = Builder::kernel("main");
    let zero = k.iconst(0);
    k.call(id, vec![zero]);
    k.ret(None);
    let k = m.add_func(k.f);
    let mut mem = vec![0u8; 64];
    let options = InterpOptions {
        max_call_depth: 50,
        ..InterpOptions::default()
    };
    let err = run(&m, k, &launch(1, 1, vec![]), &mut mem, &options).unwrap_err();
    match &err {
        InterpError::CallDepth { at, limit, .. } => {
            assert_eq!(*limit, 50);
            assert_eq!(at.func_name, "forever");
        }
        other => panic!("expected a call depth error, got {other}"),
    }
}

/// A kernel with an 8-int local array: `arr[j] = tid * 10 + j` through a
/// device function that fills the caller's array, then
/// `out[tid] = arr[3] + arr[5] + arr[index]`, where `index` is parameter 1.
fn local_array(m: &mut Module) -> FuncId {
    let fill = FuncId::new(m.funcs.len());
    let (mut f, args) = Builder::device("fill", &[Type::I32, Type::I32], None);
    let (ptr, seed) = (args[0], args[1]);
    // Its own local scalar, to check frames do not overlap.
    let own = f.f.add_stack_slot(4, 4);
    let own_addr = f.ins(InstData::StackAddr { slot: own }, Type::I32);
    f.store(MemSpace::Local, StoreWidth::B32, seed, own_addr, 0);
    let head = f.block();
    let body = f.block();
    let done = f.block();
    let zero = f.iconst(0);
    f.jump(head, vec![zero]);
    f.at(head);
    let j = f.param(head, Type::I32);
    let eight = f.iconst(8);
    let more = f.icmp(Cmp::Lt, j, eight);
    f.brif(more, body, vec![], done);
    f.at(body);
    let s = f.load(MemSpace::Local, LoadWidth::B32, own_addr, 0);
    let v = f.bin(BinaryOp::Add, s, j);
    let at = f.word_addr(ptr, j);
    f.store(MemSpace::Local, StoreWidth::B32, v, at, 0);
    let one = f.iconst(1);
    let next = f.bin(BinaryOp::Add, j, one);
    f.jump(head, vec![next]);
    f.at(done);
    f.ret(None);
    m.add_func(f.f);

    let mut k = Builder::kernel("locals");
    let arr: StackSlot = k.f.add_stack_slot(32, 4);
    let tid = k.special(SpecialReg::TidX);
    let ten = k.iconst(10);
    let seed = k.bin(BinaryOp::Mul, tid, ten);
    let base = k.ins(InstData::StackAddr { slot: arr }, Type::I32);
    k.effect(InstData::Call {
        func: fill,
        args: vec![base, seed],
    });
    let a3 = k.load(MemSpace::Local, LoadWidth::B32, base, 12);
    let a5 = k.load(MemSpace::Local, LoadWidth::B32, base, 20);
    let index = k.kparam(1);
    let ai_addr = k.word_addr(base, index);
    let ai = k.load(MemSpace::Local, LoadWidth::B32, ai_addr, 0);
    let s = k.bin(BinaryOp::Add, a3, a5);
    let s = k.bin(BinaryOp::Add, s, ai);
    let out = k.kparam(0);
    let at = k.word_addr(out, tid);
    k.store(MemSpace::Global, StoreWidth::B32, s, at, 0);
    k.ret(None);
    m.add_func(k.f)
}

#[test]
fn local_arrays_are_per_thread_and_per_frame() {
    let mut m = Module::default();
    let k = local_array(&mut m);
    let mut mem = vec![0u8; 1024];
    run_ok(&m, k, &launch(1, 16, vec![0x100, 7]), &mut mem);
    let want: Vec<u32> = (0..16u32)
        .map(|t| (t * 10 + 3) + (t * 10 + 5) + (t * 10 + 7))
        .collect();
    assert_eq!(read_words(&mem, 0x100, 16), want);
}

#[test]
fn local_access_past_the_array_is_out_of_range() {
    let mut m = Module::default();
    let k = local_array(&mut m);
    let mut mem = vec![0u8; 1024];
    let err = run(
        &m,
        k,
        &launch(1, 4, vec![0x100, 8]),
        &mut mem,
        &InterpOptions::default(),
    )
    .unwrap_err();
    match &err {
        InterpError::Memory {
            space,
            kind,
            thread,
            at,
            ..
        } => {
            assert_eq!((*space, *kind), (MemSpace::Local, MemFault::OutOfRange));
            assert_eq!(thread.tid, 0);
            assert_eq!(at.func_name, "locals");
        }
        other => panic!("expected a local memory error, got {other}"),
    }
}

#[test]
fn narrow_loads_extend_and_narrow_stores_truncate() {
    // Memory at 0x100: 80 7f ff 01 | 34 12 fe ff.
    let mut k = Builder::kernel("narrow");
    let src = k.kparam(0);
    let dst = k.kparam(1);
    let loads = [
        (LoadWidth::S8, 0),
        (LoadWidth::U8, 0),
        (LoadWidth::S8, 1),
        (LoadWidth::S8, 2),
        (LoadWidth::U8, 2),
        (LoadWidth::S16, 0),
        (LoadWidth::U16, 0),
        (LoadWidth::S16, 6),
        (LoadWidth::U16, 6),
        (LoadWidth::S16, 4),
        (LoadWidth::B32, 4),
    ];
    for (n, (width, off)) in loads.into_iter().enumerate() {
        let v = k.load(MemSpace::Global, width, src, off);
        k.store(MemSpace::Global, StoreWidth::B32, v, dst, 4 * n as i32);
    }
    // Stores of 0x1234_5678: b8 at dst+64, b16 at dst+68, b8 at dst+71.
    let v = k.iconst(0x1234_5678);
    k.store(MemSpace::Global, StoreWidth::B8, v, dst, 64);
    k.store(MemSpace::Global, StoreWidth::B16, v, dst, 68);
    k.store(MemSpace::Global, StoreWidth::B8, v, dst, 71);
    k.ret(None);
    let (m, k) = module_with(k);
    let mut mem = vec![0xaau8; 1024];
    mem[0x100..0x108].copy_from_slice(&[0x80, 0x7f, 0xff, 0x01, 0x34, 0x12, 0xfe, 0xff]);
    run_ok(&m, k, &launch(1, 1, vec![0x100, 0x200]), &mut mem);
    let want = vec![
        0xffff_ff80, // s8 80
        0x80,        // u8 80
        0x7f,        // s8 7f
        0xffff_ffff, // s8 ff
        0xff,        // u8 ff
        0x7f80,      // s16 7f80
        0x7f80,      // u16 7f80
        0xffff_fffe, // s16 fffe
        0xfffe,      // u16 fffe
        0x1234,      // s16 1234
        0xfffe_1234, // b32
    ];
    assert_eq!(read_words(&mem, 0x200, want.len()), want);
    assert_eq!(
        &mem[0x240..0x248],
        &[0x78, 0xaa, 0xaa, 0xaa, 0x78, 0x56, 0xaa, 0x78]
    );
}

#[test]
fn division_semantics_table() {
    // out[k] for each (op, a, b) row, all from parameter words.
    const MIN: u32 = i32::MIN as u32;
    let rows: [(BinaryOp, u32, u32, u32); 14] = [
        (BinaryOp::SDiv, 7, 2, 3),
        (BinaryOp::SDiv, -7i32 as u32, 2, -3i32 as u32),
        (BinaryOp::SDiv, 7, -2i32 as u32, -3i32 as u32),
        (BinaryOp::SDiv, 9, 0, u32::MAX),
        (BinaryOp::SDiv, MIN, u32::MAX, MIN),
        (BinaryOp::SRem, -7i32 as u32, 2, -1i32 as u32),
        (BinaryOp::SRem, 7, -2i32 as u32, 1),
        (BinaryOp::SRem, 9, 0, 9),
        (BinaryOp::SRem, MIN, u32::MAX, 0),
        (BinaryOp::UDiv, u32::MAX, 2, 0x7fff_ffff),
        (BinaryOp::UDiv, 9, 0, u32::MAX),
        (BinaryOp::URem, u32::MAX, 10, 5),
        (BinaryOp::URem, 9, 0, 9),
        (BinaryOp::SDiv, MIN, 2, 0xc000_0000),
    ];
    let mut k = Builder::kernel("divisions");
    let out = k.kparam(0);
    let mut params = vec![0x100];
    for (n, &(op, a, b, _)) in rows.iter().enumerate() {
        params.push(a);
        params.push(b);
        let x = k.kparam(1 + 2 * n as u32);
        let y = k.kparam(2 + 2 * n as u32);
        let r = k.bin(op, x, y);
        k.store(MemSpace::Global, StoreWidth::B32, r, out, 4 * n as i32);
    }
    k.ret(None);
    let (m, k) = module_with(k);
    let mut mem = vec![0u8; 1024];
    run_ok(&m, k, &launch(1, 1, params), &mut mem);
    let want: Vec<u32> = rows.iter().map(|r| r.3).collect();
    assert_eq!(read_words(&mem, 0x100, rows.len()), want);
}

/// A one-thread kernel doing one access of `width` at parameter 0 + `offset`.
fn one_access(space: MemSpace, width: LoadWidth, offset: i32) -> (Module, FuncId) {
    let mut k = Builder::kernel("access");
    let a = k.kparam(0);
    k.load(space, width, a, offset);
    k.ret(None);
    module_with(k)
}

fn memory_error(space: MemSpace, width: LoadWidth, addr: u32, offset: i32) -> InterpError {
    let (m, k) = one_access(space, width, offset);
    let mut mem = vec![0u8; 256];
    run(
        &m,
        k,
        &launch(1, 1, vec![addr]),
        &mut mem,
        &InterpOptions::default(),
    )
    .unwrap_err()
}

#[test]
fn out_of_range_and_misaligned_accesses() {
    // (space, width, base, offset, fault, faulting address)
    let cases = [
        (
            MemSpace::Global,
            LoadWidth::B32,
            256,
            0,
            MemFault::OutOfRange,
            256,
        ),
        (
            MemSpace::Global,
            LoadWidth::B32,
            252,
            4,
            MemFault::OutOfRange,
            256,
        ),
        (
            MemSpace::Global,
            LoadWidth::U16,
            255,
            0,
            MemFault::Misaligned,
            255,
        ),
        // Misaligned is reported in preference to out of range.
        (
            MemSpace::Global,
            LoadWidth::B32,
            0x1001,
            0,
            MemFault::Misaligned,
            0x1001,
        ),
        (
            MemSpace::Global,
            LoadWidth::B32,
            4,
            -8,
            MemFault::OutOfRange,
            u32::MAX - 3,
        ),
        (
            MemSpace::Shared,
            LoadWidth::B32,
            1024,
            0,
            MemFault::OutOfRange,
            1024,
        ),
        (
            MemSpace::Shared,
            LoadWidth::S16,
            3,
            0,
            MemFault::Misaligned,
            3,
        ),
        (
            MemSpace::Local,
            LoadWidth::B32,
            0,
            0,
            MemFault::OutOfRange,
            0,
        ),
        (
            MemSpace::Local,
            LoadWidth::B32,
            2,
            0,
            MemFault::Misaligned,
            2,
        ),
    ];
    for (space, width, base, offset, fault, addr) in cases {
        let err = memory_error(space, width, base, offset);
        match &err {
            InterpError::Memory {
                space: s,
                kind,
                addr: a,
                bytes,
                ..
            } => {
                assert_eq!((*s, *kind, *a), (space, fault, addr), "{err}");
                assert_eq!(*bytes, width.bytes());
            }
            other => panic!("expected a memory error, got {other}"),
        }
    }
    // The message names the block, the thread, the function, the IR block
    // and the address.
    let err = memory_error(MemSpace::Global, LoadWidth::B32, 256, 0);
    let text = err.to_string();
    for part in [
        "block (0,0,0)",
        "thread (0,0,0)",
        "@access",
        "block0",
        "0x00000100",
    ] {
        assert!(text.contains(part), "`{part}` missing from: {text}");
    }
}

#[test]
fn faulting_store_leaves_memory_unchanged() {
    let mut k = Builder::kernel("store");
    let a = k.kparam(0);
    let v = k.iconst(-1);
    k.store(MemSpace::Global, StoreWidth::B32, v, a, 0);
    k.ret(None);
    let (m, k) = module_with(k);
    let mut mem = vec![0u8; 256];
    assert!(run(
        &m,
        k,
        &launch(1, 1, vec![254]),
        &mut mem,
        &InterpOptions::default()
    )
    .is_err());
    assert!(mem.iter().all(|&b| b == 0));
}

#[test]
fn step_limit_stops_an_endless_loop() {
    let mut k = Builder::kernel("spin");
    let lp = k.block();
    k.jump(lp, vec![]);
    k.at(lp);
    k.jump(lp, vec![]);
    let (m, k) = module_with(k);
    let mut mem = vec![0u8; 64];
    let options = InterpOptions {
        max_steps: 1000,
        ..InterpOptions::default()
    };
    let err = run(&m, k, &launch(1, 2, vec![]), &mut mem, &options).unwrap_err();
    match &err {
        InterpError::StepLimit { limit, thread, at } => {
            assert_eq!(*limit, 1000);
            // Thread 0 runs alone until it reaches a synchronisation point,
            // so it is the one that exhausts the budget.
            assert_eq!(thread.tid, 0);
            assert_eq!(at.block, lp);
        }
        other => panic!("expected the step limit, got {other}"),
    }
    assert!(err.to_string().contains("step limit exceeded"), "{err}");
}

#[test]
fn special_registers_of_a_3d_block() {
    // Block 3x2x2 = 12 threads, warps of 8, grid 2x1x1. Each thread writes
    // 8 words at out + 32 * (ctaid.x * 12 + tid).
    let regs = [
        SpecialReg::TidX,
        SpecialReg::TidY,
        SpecialReg::TidZ,
        SpecialReg::TidLinear,
        SpecialReg::LaneId,
        SpecialReg::WarpId,
        SpecialReg::NWarps,
        SpecialReg::NctaidX,
    ];
    let mut k = Builder::kernel("specials");
    let tid = k.special(SpecialReg::TidLinear);
    let ctaid = k.special(SpecialReg::CtaidX);
    let twelve = k.iconst(12);
    let row = k.bin(BinaryOp::Mul, ctaid, twelve);
    let row = k.bin(BinaryOp::Add, row, tid);
    let three = k.iconst(3);
    let row = k.bin(BinaryOp::Shl, row, three);
    let out = k.kparam(0);
    let base = k.word_addr(out, row);
    for (n, reg) in regs.into_iter().enumerate() {
        let v = k.special(reg);
        k.store(MemSpace::Global, StoreWidth::B32, v, base, 4 * n as i32);
    }
    k.ret(None);
    let (m, k) = module_with(k);
    let mut mem = vec![0u8; 2048];
    let l = InterpLaunch {
        grid: [2, 1, 1],
        block: [3, 2, 2],
        params: vec![0x100],
        lanes: 8,
        shared_memory_bytes: 0,
    };
    run_ok(&m, k, &l, &mut mem);
    for block in 0..2u32 {
        for t in 0..12u32 {
            let row = read_words(&mem, 0x100 + 32 * (block * 12 + t), 8);
            let want = vec![t % 3, (t / 3) % 2, t / 6, t, t % 8, t / 8, 2, 2];
            assert_eq!(row, want, "block {block} thread {t}");
        }
    }
}

#[test]
fn missing_parameter_is_an_error() {
    let mut k = Builder::kernel("params");
    k.kparam(2);
    k.ret(None);
    let (m, k) = module_with(k);
    let mut mem = vec![0u8; 64];
    let err = run(
        &m,
        k,
        &launch(1, 1, vec![1, 2]),
        &mut mem,
        &InterpOptions::default(),
    )
    .unwrap_err();
    assert!(
        matches!(
            err,
            InterpError::MissingParam {
                index: 2,
                supplied: 2,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn branch_arguments_are_read_before_parameters_are_written() {
    // A loop that swaps (x, y) three times: (1, 2) -> (2, 1) -> (1, 2) -> (2, 1).
    let mut k = Builder::kernel("swap");
    let head = k.block();
    let body = k.block();
    let done = k.block();
    let one = k.iconst(1);
    let two = k.iconst(2);
    let zero = k.iconst(0);
    k.jump(head, vec![one, two, zero]);
    k.at(head);
    let x = k.param(head, Type::I32);
    let y = k.param(head, Type::I32);
    let n = k.param(head, Type::I32);
    let three = k.iconst(3);
    let more = k.icmp(Cmp::Lt, n, three);
    k.brif(more, body, vec![], done);
    k.at(body);
    let one_b = k.iconst(1);
    let n1 = k.bin(BinaryOp::Add, n, one_b);
    k.jump(head, vec![y, x, n1]);
    k.at(done);
    let out = k.kparam(0);
    k.store(MemSpace::Global, StoreWidth::B32, x, out, 0);
    k.store(MemSpace::Global, StoreWidth::B32, y, out, 4);
    k.ret(None);
    let (m, k) = module_with(k);
    let mut mem = vec![0u8; 64];
    run_ok(&m, k, &launch(1, 1, vec![16]), &mut mem);
    assert_eq!(read_words(&mem, 16, 2), vec![2, 1]);
}

#[test]
fn launch_errors() {
    let (m, k) = module_with(vecadd());
    let mut mem = vec![0u8; 64];
    let opts = InterpOptions::default();
    let mut l = launch(1, 1, vec![0, 0, 0, 0]);
    l.lanes = 33;
    assert!(matches!(
        run(&m, k, &l, &mut mem, &opts),
        Err(InterpError::Launch { .. })
    ));
    let mut l = launch(1, 1, vec![0, 0, 0, 0]);
    l.block = [0, 1, 1];
    assert!(matches!(
        run(&m, k, &l, &mut mem, &opts),
        Err(InterpError::Launch { .. })
    ));
    let l = launch(1, 1, vec![0, 0, 0, 0]);
    assert!(matches!(
        run(&m, FuncId::new(5), &l, &mut mem, &opts),
        Err(InterpError::Launch { .. })
    ));
    // Shared variables larger than the block's shared memory.
    let mut m2 = m.clone();
    m2.add_shared("big", 2048, 4);
    assert!(matches!(
        run(&m2, k, &l, &mut mem, &opts),
        Err(InterpError::Launch { .. })
    ));
}

#[test]
fn value_used_before_definition_is_malformed_not_a_panic() {
    let mut k = Builder::kernel("bad");
    let later = k.block();
    let x = k.param(later, Type::I32);
    let y = k.bin(BinaryOp::Add, x, x);
    let _ = y;
    k.ret(None);
    let (m, k) = module_with(k);
    let mut mem = vec![0u8; 64];
    let err = run(
        &m,
        k,
        &launch(1, 1, vec![]),
        &mut mem,
        &InterpOptions::default(),
    )
    .unwrap_err();
    assert!(matches!(err, InterpError::Malformed { .. }), "{err}");
}

fn parse(text: &str) -> (Module, FuncId) {
    let m = concord_compiler::ir::parse_module(text, "test.cir").unwrap_or_else(|e| panic!("{e}"));
    let k = m.kernels().next().expect("a kernel");
    (m, k)
}

#[test]
fn threads_may_arrive_at_different_barrier_instructions() {
    // tile[tid] = tid + 1; barrier (threads 0..2 at one, 3..7 at another);
    // out[tid] = tile[(tid + 1) % 8].
    let (m, k) = parse(
        "shared @tile 32 align 4
kernel @rotate(out) {
block0:
    v0 = special tid.x
    v1 = iconst 2
    v2 = ishl v0, v1
    v3 = shared_addr @tile
    v4 = iadd v3, v2
    v5 = iconst 1
    v6 = iadd v0, v5
    store.shared.b32 v6, v4
    v7 = iconst 3
    v8 = icmp lt v0, v7
    brif v8, block1, block2
block1:
    barrier
    jump block3
block2:
    barrier
    jump block3
block3:
    v9 = iconst 7
    v10 = band v6, v9
    v11 = ishl v10, v1
    v12 = iadd v3, v11
    v13 = load.shared.b32 v12
    v14 = param 0
    v15 = iadd v14, v2
    store.global.b32 v13, v15
    return
}
",
    );
    let mut mem = vec![0u8; 512];
    let stats = run_ok(&m, k, &launch(1, 8, vec![0x100]), &mut mem);
    let want: Vec<u32> = (0..8u32).map(|t| (t + 1) % 8 + 1).collect();
    assert_eq!(read_words(&mem, 0x100, 8), want);
    assert_eq!(stats.barriers, 1);
}

#[test]
fn same_vote_at_different_call_depths_is_divergent() {
    // Thread t calls f(t): f recurses down to 0, then votes, so thread 0
    // votes at depth 1 and thread 1 at depth 2.
    let (m, k) = parse(
        "kernel @main() {
block0:
    v0 = special tid.x
    call @f(v0)
    return
}

func @f(i32) {
block0(v0: i32):
    v1 = iconst 0
    v2 = icmp gt v0, v1
    brif v2, block1, block2
block1:
    v3 = iconst 1
    v4 = isub v0, v3
    call @f(v4)
    jump block2
block2:
    v5 = vote.all v2
    return
}
",
    );
    let mut mem = vec![0u8; 64];
    let err = run(
        &m,
        k,
        &launch(1, 2, vec![]),
        &mut mem,
        &InterpOptions::default(),
    )
    .unwrap_err();
    match &err {
        InterpError::DivergentVote { thread, reason, .. } => {
            assert_eq!(thread.tid, 0);
            assert!(
                reason.contains("at call depth 2 (this one at 1)"),
                "{reason}"
            );
        }
        other => panic!("expected a divergent vote, got {other}"),
    }
}

#[test]
fn launch_from_a_prepared_launch_and_core_config() {
    use concord_isa::config::CoreConfig;
    use concord_isa::launch::PreparedLaunch;
    let config = CoreConfig {
        lanes: 4,
        ..CoreConfig::default()
    };
    let prepared = PreparedLaunch {
        grid: [2, 1, 1],
        block: [8, 1, 1],
        entry_pc: 0,
        params: vec![1, 2],
        global: vec![0; 64],
        buffers: Vec::new(),
        outputs: Vec::new(),
        watchdog: 1000,
    };
    let l = InterpLaunch::new(&prepared, &config);
    assert_eq!(l.grid, [2, 1, 1]);
    assert_eq!(l.block, [8, 1, 1]);
    assert_eq!(l.params, vec![1, 2]);
    assert_eq!(l.lanes, 4);
    assert_eq!(l.shared_memory_bytes, config.shared_memory_bytes);
}

#[test]
fn clock_counts_executed_instructions() {
    // Two threads each read the clock as their 1st and 3rd instruction;
    // thread 0 runs to its end (10 instructions) before thread 1 starts.
    let (m, k) = parse(
        "kernel @clock(out) {
block0:
    v0 = special clock
    v1 = special tid
    v2 = special clock
    v3 = iconst 3
    v4 = ishl v1, v3
    v5 = param 0
    v6 = iadd v5, v4
    store.global.b32 v0, v6
    store.global.b32 v2, v6+4
    return
}
",
    );
    let mut mem = vec![0u8; 64];
    run_ok(&m, k, &launch(1, 2, vec![16]), &mut mem);
    assert_eq!(read_words(&mem, 16, 4), vec![0, 2, 10, 12]);
}

#[test]
fn oversized_local_frames_are_errors_not_allocations() {
    let mut k = Builder::kernel("huge");
    k.f.add_stack_slot(1 << 30, 4);
    k.ret(None);
    let (m, k) = module_with(k);
    let mut mem = vec![0u8; 64];
    let err = run(
        &m,
        k,
        &launch(1, 1, vec![]),
        &mut mem,
        &InterpOptions::default(),
    )
    .unwrap_err();
    assert!(matches!(err, InterpError::Launch { .. }), "{err}");
    assert!(err.to_string().contains("local memory"), "{err}");
}
