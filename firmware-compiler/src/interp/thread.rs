//! The execution engine: threads with their frames and local memory, one
//! block at a time, and the resolution of barriers and votes.

use concord_isa::instr::{SpecialReg, VoteKind};
use concord_isa::semantics;

use crate::ir::{
    print_inst, Block, FuncId, Function, Inst, InstData, MemSpace, Module, Value, VoteOp,
};

use super::error::{InstPos, InterpError, MemFault, ThreadPos};
use super::layout::{frame_layout, FrameLayout, LayoutError};
use super::ops::{eval_binary, eval_unary};
use super::{InterpLaunch, InterpOptions, InterpStats};

/// Local address of the first frame. Not 0, so that a null pointer used as
/// a local address faults. Local addresses are not observable on the
/// machine except through pointer values, which are model-dependent.
const LOCAL_BASE: u32 = 0x1000;

/// Most local memory one thread may use (its live frames' stack slots):
/// a bound on the interpreter's own memory, far above what a core's
/// per-thread local region can hold.
const MAX_LOCAL_BYTES: u64 = 1 << 24;

/// A failure inside one instruction, before the location is attached.
enum Fault {
    Memory {
        space: MemSpace,
        kind: MemFault,
        addr: u32,
        bytes: u32,
        size: u64,
    },
    Malformed(String),
    MissingParam {
        index: u32,
    },
    CallDepth,
    StepLimit,
}

fn malformed<T>(message: impl Into<String>) -> Result<T, Fault> {
    Err(Fault::Malformed(message.into()))
}

/// One activation of a function.
struct Frame {
    func: FuncId,
    block: Block,
    /// Index of the next instruction in `block`.
    pos: usize,
    /// SSA values of the activation, indexed by `Value`; `None` until defined.
    values: Vec<Option<u32>>,
    /// Local address of the frame's start.
    base: u32,
}

/// Where a thread is between two runs of the scheduler.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Status {
    Running,
    /// Waits at a barrier (already past it: `pos` is the next instruction).
    AtBarrier,
    /// Waits at the vote its top frame's `pos` points to.
    AtVote {
        func: FuncId,
        inst: Inst,
        depth: usize,
        op: VoteOp,
        yes: bool,
    },
    Exited,
}

struct Thread {
    tid: u32,
    xyz: [u32; 3],
    frames: Vec<Frame>,
    /// Local memory from `LOCAL_BASE`, covering the live frames.
    local: Vec<u8>,
    status: Status,
}

/// The interpreter's state over a launch.
pub(super) struct Machine<'a> {
    module: &'a Module,
    launch: &'a InterpLaunch,
    options: &'a InterpOptions,
    shared_offsets: Vec<u32>,
    frame_layouts: Vec<Result<FrameLayout, LayoutError>>,
    stats: InterpStats,
    /// The current block's index and shared memory.
    ctaid: [u32; 3],
    shared: Vec<u8>,
    /// Branch and call arguments, read before any parameter is written.
    scratch: Vec<u32>,
}

impl<'a> Machine<'a> {
    pub(super) fn new(
        module: &'a Module,
        launch: &'a InterpLaunch,
        options: &'a InterpOptions,
        shared_offsets: Vec<u32>,
    ) -> Machine<'a> {
        Machine {
            module,
            launch,
            options,
            shared_offsets,
            frame_layouts: module.funcs.iter().map(frame_layout).collect(),
            stats: InterpStats {
                per_function: vec![0; module.funcs.len()],
                ..InterpStats::default()
            },
            ctaid: [0; 3],
            shared: Vec::new(),
            scratch: Vec::new(),
        }
    }

    pub(super) fn into_stats(self) -> InterpStats {
        self.stats
    }

    fn threads_per_block(&self) -> u32 {
        let [x, y, z] = self.launch.block;
        x * y * z
    }

    fn thread_pos(&self, t: &Thread) -> ThreadPos {
        ThreadPos {
            block: self.ctaid,
            thread: t.xyz,
            tid: t.tid,
            warp: t.tid / self.launch.lanes,
            lane: t.tid % self.launch.lanes,
        }
    }

    fn inst_pos(&self, func: FuncId, block: Block, inst: Option<Inst>) -> InstPos {
        let f = &self.module.funcs[func.index()];
        InstPos {
            func,
            func_name: f.name.clone(),
            block,
            inst,
            text: match inst {
                Some(i) => print_inst(self.module, f, i),
                None => "(end of block without terminator)".to_string(),
            },
        }
    }

    /// Runs one block of the grid to its end.
    pub(super) fn run_block(
        &mut self,
        kernel: FuncId,
        ctaid: [u32; 3],
        global: &mut [u8],
    ) -> Result<(), InterpError> {
        self.ctaid = ctaid;
        self.shared.clear();
        self.shared
            .resize(self.launch.shared_memory_bytes as usize, 0);
        let [nx, ny, _] = self.launch.block;
        let count = self.threads_per_block();
        let mut threads = Vec::with_capacity(count as usize);
        for tid in 0..count {
            let xyz = [tid % nx, (tid / nx) % ny, tid / (nx * ny)];
            let mut t = Thread {
                tid,
                xyz,
                frames: Vec::new(),
                local: Vec::new(),
                status: Status::Running,
            };
            self.enter_kernel(kernel, &mut t)?;
            threads.push(t);
        }
        self.stats.blocks += 1;
        self.stats.threads += u64::from(count);

        loop {
            for t in threads.iter_mut() {
                if t.status == Status::Running {
                    self.run_thread(t, global)?;
                }
            }
            if threads.iter().all(|t| t.status == Status::Exited) {
                return Ok(());
            }
            if self.resolve_votes(&mut threads)? {
                continue;
            }
            self.release_barrier(&mut threads)?;
        }
    }

    fn enter_kernel(&mut self, kernel: FuncId, t: &mut Thread) -> Result<(), InterpError> {
        let module = self.module;
        let func = &module.funcs[kernel.index()];
        let Some(entry) = func.entry_block() else {
            return Err(InterpError::Launch {
                message: format!("kernel @{} has no blocks", func.name),
            });
        };
        if !func
            .blocks
            .get(entry.index())
            .is_some_and(|b| b.params.is_empty())
        {
            return Err(InterpError::Launch {
                message: format!("the entry block of kernel @{} has parameters", func.name),
            });
        }
        self.push_frame(t, kernel, entry)
            .map_err(|fault| match fault {
                Fault::Malformed(message) => InterpError::Launch { message },
                _ => InterpError::Launch {
                    message: format!("cannot enter kernel @{}", func.name),
                },
            })
    }

    /// Pushes a frame for `func` starting at `entry`, with zeroed slots.
    fn push_frame(&mut self, t: &mut Thread, func: FuncId, entry: Block) -> Result<(), Fault> {
        let layout = match &self.frame_layouts[func.index()] {
            Ok(layout) => layout,
            Err(e) => return malformed(e.to_string()),
        };
        let top = u64::from(LOCAL_BASE) + t.local.len() as u64;
        let base = top.next_multiple_of(u64::from(layout.align));
        let end = base + u64::from(layout.size);
        if end - u64::from(LOCAL_BASE) > MAX_LOCAL_BYTES {
            return malformed(format!(
                "the thread's frames need more than {MAX_LOCAL_BYTES} bytes of local memory"
            ));
        }
        t.local.resize((end - u64::from(LOCAL_BASE)) as usize, 0);
        let n_values = self.module.funcs[func.index()].values.len();
        t.frames.push(Frame {
            func,
            block: entry,
            pos: 0,
            values: vec![None; n_values],
            base: base as u32,
        });
        let depth = (t.frames.len() - 1) as u32;
        self.stats.max_call_depth = self.stats.max_call_depth.max(depth);
        Ok(())
    }

    /// Runs `t` until it waits at a barrier or a vote, or exits.
    fn run_thread(&mut self, t: &mut Thread, global: &mut [u8]) -> Result<(), InterpError> {
        while t.status == Status::Running {
            let Some(frame) = t.frames.last() else {
                t.status = Status::Exited;
                break;
            };
            let (func, block, pos) = (frame.func, frame.block, frame.pos);
            let inst = self.module.funcs[func.index()]
                .blocks
                .get(block.index())
                .and_then(|b| b.insts.get(pos).copied());
            let result = match inst {
                None => malformed(format!("{block} has no instruction {pos} (no terminator?)")),
                Some(inst) => self.step(t, func, inst, global),
            };
            if let Err(fault) = result {
                return Err(self.locate(fault, t, func, block, inst));
            }
        }
        Ok(())
    }

    fn locate(
        &self,
        fault: Fault,
        t: &Thread,
        func: FuncId,
        block: Block,
        inst: Option<Inst>,
    ) -> InterpError {
        let thread = self.thread_pos(t);
        let at = self.inst_pos(func, block, inst);
        match fault {
            Fault::Memory {
                space,
                kind,
                addr,
                bytes,
                size,
            } => InterpError::Memory {
                thread,
                at,
                space,
                kind,
                addr,
                bytes,
                size,
            },
            Fault::Malformed(message) => InterpError::Malformed {
                thread,
                at,
                message,
            },
            Fault::MissingParam { index } => InterpError::MissingParam {
                thread,
                at,
                index,
                supplied: self.launch.params.len(),
            },
            Fault::CallDepth => InterpError::CallDepth {
                thread,
                at,
                limit: self.options.max_call_depth,
            },
            Fault::StepLimit => InterpError::StepLimit {
                thread,
                at,
                limit: self.options.max_steps,
            },
        }
    }

    /// Executes instruction `inst` of the top frame of `t` (a function
    /// `func`). On error, nothing of the thread's position has changed.
    fn step(
        &mut self,
        t: &mut Thread,
        func_id: FuncId,
        inst: Inst,
        global: &mut [u8],
    ) -> Result<(), Fault> {
        if self.stats.instructions >= self.options.max_steps {
            return Err(Fault::StepLimit);
        }
        let module = self.module;
        let func = &module.funcs[func_id.index()];
        let Some(node) = func.insts.get(inst.index()) else {
            return malformed(format!("{inst} does not exist"));
        };
        let clock = self.stats.instructions;
        self.stats.instructions += 1;
        self.stats.per_function[func_id.index()] += 1;

        let frame = t.frames.last().expect("run_thread checked the frame");
        let get = |v: Value| read_value(func, frame, v);
        let value: Option<u32> = match &node.data {
            InstData::Iconst { imm } => Some(*imm as u32),
            InstData::Bconst { imm } => Some(u32::from(*imm)),
            InstData::Unary { op, arg } => {
                let ty = value_type(func, *arg)?;
                Some(eval_unary(*op, ty, get(*arg)?))
            }
            InstData::Binary { op, args } => Some(eval_binary(*op, get(args[0])?, get(args[1])?)),
            InstData::Icmp { cmp, args } => Some(u32::from(semantics::compare(
                *cmp,
                get(args[0])?,
                get(args[1])?,
            ))),
            InstData::Select {
                cond,
                if_true,
                if_false,
            } => Some(if get(*cond)? != 0 {
                get(*if_true)?
            } else {
                get(*if_false)?
            }),
            InstData::Special { reg } => Some(self.special(t, *reg, clock)),
            InstData::Param { index } => match self.launch.params.get(*index as usize) {
                Some(&word) => Some(word),
                None => return Err(Fault::MissingParam { index: *index }),
            },
            InstData::SharedAddr { var } => match self.shared_offsets.get(var.index()) {
                Some(&offset) => Some(offset),
                None => return malformed(format!("{var} is not a shared variable of the module")),
            },
            InstData::StackAddr { slot } => {
                let layout = self.frame_layouts[func_id.index()]
                    .as_ref()
                    .expect("a frame exists only when its layout does");
                match layout.offsets.get(slot.index()) {
                    Some(&offset) => Some(frame.base + offset),
                    None => {
                        return malformed(format!("{slot} is not a stack slot of @{}", func.name))
                    }
                }
            }
            InstData::Load {
                space,
                width,
                addr,
                offset,
            } => {
                let addr = get(*addr)?.wrapping_add(*offset as u32);
                let raw = self.load(t, global, *space, addr, width.bytes())?;
                Some(semantics::load_extend(*width, raw))
            }
            InstData::Store {
                space,
                width,
                value,
                addr,
                offset,
            } => {
                let value = semantics::store_truncate(*width, get(*value)?);
                let addr = get(*addr)?.wrapping_add(*offset as u32);
                self.store(t, global, *space, addr, width.bytes(), value)?;
                None
            }
            InstData::Atomic {
                space,
                op,
                addr,
                value,
            } => {
                let (addr, operand) = (get(*addr)?, get(*value)?);
                let old = self.load(t, global, *space, addr, 4)?;
                self.store(
                    t,
                    global,
                    *space,
                    addr,
                    4,
                    semantics::atomic(*op, old, operand),
                )?;
                Some(old)
            }
            InstData::Vote { op, arg } => {
                let yes = get(*arg)? != 0;
                t.status = Status::AtVote {
                    func: func_id,
                    inst,
                    depth: t.frames.len(),
                    op: *op,
                    yes,
                };
                // The scheduler writes the result and moves on.
                return Ok(());
            }
            InstData::Barrier => {
                t.status = Status::AtBarrier;
                None
            }
            InstData::Call { func: callee, args } => {
                return self.call(t, *callee, args);
            }
            InstData::Jump { dest } => {
                return self.branch(t, dest.block, &dest.args);
            }
            InstData::Brif {
                cond,
                then_dest,
                else_dest,
            } => {
                let dest = if get(*cond)? != 0 {
                    then_dest
                } else {
                    else_dest
                };
                return self.branch(t, dest.block, &dest.args);
            }
            InstData::Return { value } => {
                let value = match value {
                    Some(v) => Some(get(*v)?),
                    None => None,
                };
                return self.ret(t, value);
            }
        };
        let frame = t.frames.last_mut().expect("run_thread checked the frame");
        if let Some(v) = value {
            define_result(func, frame, inst, v)?;
        }
        frame.pos += 1;
        Ok(())
    }

    fn special(&self, t: &Thread, reg: SpecialReg, clock: u64) -> u32 {
        let lanes = self.launch.lanes;
        let [nx, ny, nz] = self.launch.block;
        let [gx, gy, gz] = self.launch.grid;
        match reg {
            SpecialReg::TidX => t.xyz[0],
            SpecialReg::TidY => t.xyz[1],
            SpecialReg::TidZ => t.xyz[2],
            SpecialReg::TidLinear => t.tid,
            SpecialReg::NtidX => nx,
            SpecialReg::NtidY => ny,
            SpecialReg::NtidZ => nz,
            SpecialReg::CtaidX => self.ctaid[0],
            SpecialReg::CtaidY => self.ctaid[1],
            SpecialReg::CtaidZ => self.ctaid[2],
            SpecialReg::NctaidX => gx,
            SpecialReg::NctaidY => gy,
            SpecialReg::NctaidZ => gz,
            SpecialReg::LaneId => t.tid % lanes,
            SpecialReg::WarpId => t.tid / lanes,
            SpecialReg::NWarps => self.threads_per_block().div_ceil(lanes),
            SpecialReg::WarpSize => lanes,
            SpecialReg::ClockLo => clock as u32,
            SpecialReg::ClockHi => (clock >> 32) as u32,
        }
    }

    /// Moves the top frame of `t` to `dest`, passing `args` (all read
    /// before any parameter is written).
    fn branch(&mut self, t: &mut Thread, dest: Block, args: &[Value]) -> Result<(), Fault> {
        let module = self.module;
        let frame = t.frames.last_mut().expect("run_thread checked the frame");
        let func = &module.funcs[frame.func.index()];
        let Some(block) = func.blocks.get(dest.index()) else {
            return malformed(format!("{dest} does not exist"));
        };
        if block.params.len() != args.len() {
            return malformed(format!(
                "{dest} takes {} argument(s), given {}",
                block.params.len(),
                args.len()
            ));
        }
        self.scratch.clear();
        for &a in args {
            self.scratch.push(read_value(func, frame, a)?);
        }
        for (&param, &value) in block.params.iter().zip(&self.scratch) {
            define(frame, param, value)?;
        }
        frame.block = dest;
        frame.pos = 0;
        Ok(())
    }

    fn call(&mut self, t: &mut Thread, callee: FuncId, args: &[Value]) -> Result<(), Fault> {
        let module = self.module;
        let Some(callee_fn) = module.funcs.get(callee.index()) else {
            return malformed(format!("{callee} is not a function of the module"));
        };
        let Some(entry) = callee_fn.entry_block() else {
            return malformed(format!("@{} has no blocks", callee_fn.name));
        };
        let Some(entry_data) = callee_fn.blocks.get(entry.index()) else {
            return malformed(format!(
                "the entry block of @{} does not exist",
                callee_fn.name
            ));
        };
        if entry_data.params.len() != args.len() {
            return malformed(format!(
                "@{} takes {} argument(s), given {}",
                callee_fn.name,
                entry_data.params.len(),
                args.len()
            ));
        }
        if t.frames.len() > self.options.max_call_depth as usize {
            return Err(Fault::CallDepth);
        }
        let caller = t.frames.last().expect("run_thread checked the frame");
        let caller_fn = &module.funcs[caller.func.index()];
        self.scratch.clear();
        for &a in args {
            self.scratch.push(read_value(caller_fn, caller, a)?);
        }
        self.push_frame(t, callee, entry)?;
        let frame = t.frames.last_mut().expect("just pushed");
        for (&param, &value) in entry_data.params.iter().zip(&self.scratch) {
            define(frame, param, value)?;
        }
        Ok(())
    }

    /// Returns from the top frame: exits the thread at the kernel's level,
    /// else gives `value` to the caller's call instruction.
    fn ret(&mut self, t: &mut Thread, value: Option<u32>) -> Result<(), Fault> {
        if t.frames.len() == 1 {
            t.status = Status::Exited;
            return Ok(());
        }
        // Check the caller before changing anything.
        let caller = &t.frames[t.frames.len() - 2];
        let caller_fn = &self.module.funcs[caller.func.index()];
        let call = caller_fn.blocks[caller.block.index()].insts[caller.pos];
        let result = caller_fn.insts[call.index()].result;
        if result.is_some() && value.is_none() {
            return malformed("the call expects a value but the function returned none");
        }
        let frame = t.frames.pop().expect("two frames");
        t.local.truncate((frame.base - LOCAL_BASE) as usize);
        let caller = t.frames.last_mut().expect("two frames");
        if let (Some(r), Some(v)) = (result, value) {
            define(caller, r, v)?;
        }
        caller.pos += 1;
        Ok(())
    }

    /// The byte index of an `n`-byte access at `addr` in its space's
    /// memory, after the ISA's checks (alignment first, then range).
    fn check_access(
        &self,
        t: &Thread,
        global_len: usize,
        space: MemSpace,
        addr: u32,
        bytes: u32,
    ) -> Result<usize, Fault> {
        let fault = |kind, size| Fault::Memory {
            space,
            kind,
            addr,
            bytes,
            size,
        };
        let size = match space {
            MemSpace::Global => global_len as u64,
            MemSpace::Shared => self.shared.len() as u64,
            MemSpace::Local => t.local.len() as u64,
        };
        if addr % bytes != 0 {
            return Err(fault(MemFault::Misaligned, size));
        }
        let end = u64::from(addr) + u64::from(bytes);
        match space {
            MemSpace::Global | MemSpace::Shared => {
                if end > size {
                    return Err(fault(MemFault::OutOfRange, size));
                }
                Ok(addr as usize)
            }
            MemSpace::Local => {
                if self.in_local_slot(t, addr, end) {
                    Ok((addr - LOCAL_BASE) as usize)
                } else {
                    Err(fault(MemFault::OutOfRange, size))
                }
            }
        }
    }

    /// Whether `[start, end)` lies inside one stack slot of a live frame.
    fn in_local_slot(&self, t: &Thread, start: u32, end: u64) -> bool {
        t.frames.iter().rev().any(|frame| {
            let func = &self.module.funcs[frame.func.index()];
            let Ok(layout) = &self.frame_layouts[frame.func.index()] else {
                return false;
            };
            layout
                .offsets
                .iter()
                .zip(&func.stack_slots)
                .any(|(&offset, slot)| {
                    let slot_start = u64::from(frame.base) + u64::from(offset);
                    slot_start <= u64::from(start) && end <= slot_start + u64::from(slot.size)
                })
        })
    }

    fn load(
        &self,
        t: &Thread,
        global: &[u8],
        space: MemSpace,
        addr: u32,
        bytes: u32,
    ) -> Result<u32, Fault> {
        let at = self.check_access(t, global.len(), space, addr, bytes)?;
        let mem: &[u8] = match space {
            MemSpace::Global => global,
            MemSpace::Shared => &self.shared,
            MemSpace::Local => &t.local,
        };
        let mut word = [0u8; 4];
        word[..bytes as usize].copy_from_slice(&mem[at..at + bytes as usize]);
        Ok(u32::from_le_bytes(word))
    }

    fn store(
        &mut self,
        t: &mut Thread,
        global: &mut [u8],
        space: MemSpace,
        addr: u32,
        bytes: u32,
        value: u32,
    ) -> Result<(), Fault> {
        let at = self.check_access(t, global.len(), space, addr, bytes)?;
        let mem: &mut [u8] = match space {
            MemSpace::Global => global,
            MemSpace::Shared => &mut self.shared,
            MemSpace::Local => &mut t.local,
        };
        mem[at..at + bytes as usize].copy_from_slice(&value.to_le_bytes()[..bytes as usize]);
        Ok(())
    }

    /// Resolves every warp some of whose live threads wait at a vote.
    /// Returns whether any vote was resolved.
    fn resolve_votes(&mut self, threads: &mut [Thread]) -> Result<bool, InterpError> {
        let lanes = self.launch.lanes as usize;
        let mut resolved = false;
        let count = threads.len();
        for warp in 0..count.div_ceil(lanes) {
            let members = &mut threads[warp * lanes..((warp + 1) * lanes).min(count)];
            let Some(first) = members
                .iter()
                .position(|t| matches!(t.status, Status::AtVote { .. }))
            else {
                continue;
            };
            let Status::AtVote {
                func,
                inst,
                depth,
                op,
                ..
            } = members[first].status
            else {
                unreachable!("position found a vote");
            };
            let (mut voters, mut yes) = (0u32, 0u32);
            for (lane, t) in members.iter().enumerate() {
                let reason = match t.status {
                    Status::Exited => continue,
                    Status::AtVote {
                        func: f,
                        inst: i,
                        depth: d,
                        yes: y,
                        ..
                    } if (f, i, d) == (func, inst, depth) => {
                        voters |= 1 << lane;
                        yes |= u32::from(y) << lane;
                        continue;
                    }
                    Status::AtVote {
                        func: f,
                        inst: i,
                        depth: d,
                        ..
                    } => {
                        let other = self.vote_pos(t, f, i);
                        let depths = if d == depth {
                            String::new()
                        } else {
                            format!(" at call depth {} (this one at {})", d - 1, depth - 1)
                        };
                        format!(
                            "thread {} of the warp waits at another vote, {other}{depths}",
                            t.tid
                        )
                    }
                    Status::AtBarrier => {
                        format!("thread {} of the warp waits at a barrier", t.tid)
                    }
                    Status::Running => unreachable!("every thread ran to a synchronisation point"),
                };
                let lead = &members[first];
                return Err(InterpError::DivergentVote {
                    thread: self.thread_pos(lead),
                    at: self.vote_pos(lead, func, inst),
                    reason,
                });
            }
            let result = match op {
                VoteOp::Any => u32::from(semantics::vote(VoteKind::Any, voters, yes)),
                VoteOp::All => u32::from(semantics::vote(VoteKind::All, voters, yes)),
                VoteOp::Ballot => yes,
            };
            let func_data = &self.module.funcs[func.index()];
            for t in members.iter_mut().filter(|t| t.status != Status::Exited) {
                let frame = t.frames.last_mut().expect("a waiting thread has a frame");
                if let Err(fault) = define_result(func_data, frame, inst, result) {
                    let block = frame.block;
                    return Err(self.locate(fault, t, func, block, Some(inst)));
                }
                frame.pos += 1;
                t.status = Status::Running;
            }
            self.stats.votes += 1;
            resolved = true;
        }
        Ok(resolved)
    }

    fn vote_pos(&self, t: &Thread, func: FuncId, inst: Inst) -> InstPos {
        let block = t.frames.last().map_or(Block(0), |f| f.block);
        self.inst_pos(func, block, Some(inst))
    }

    /// Every live thread waits at a barrier: release them, or fail when
    /// some thread has exited (it can never arrive).
    fn release_barrier(&mut self, threads: &mut [Thread]) -> Result<(), InterpError> {
        let exited = threads
            .iter()
            .filter(|t| t.status == Status::Exited)
            .count() as u32;
        if exited > 0 {
            let first = threads
                .iter()
                .find(|t| t.status == Status::AtBarrier)
                .expect("some thread is live");
            let frame = first.frames.last().expect("a waiting thread has a frame");
            // The barrier is the instruction before `pos`.
            let block_insts = &self.module.funcs[frame.func.index()].blocks[frame.block.index()];
            let barrier = frame
                .pos
                .checked_sub(1)
                .and_then(|p| block_insts.insts.get(p).copied());
            return Err(InterpError::BarrierNeverCompletes {
                block: self.ctaid,
                waiting: threads.len() as u32 - exited,
                exited,
                threads: threads.len() as u32,
                first_waiting: self.inst_pos(frame.func, frame.block, barrier),
            });
        }
        for t in threads.iter_mut() {
            t.status = Status::Running;
        }
        self.stats.barriers += 1;
        Ok(())
    }
}

fn read_value(func: &Function, frame: &Frame, v: Value) -> Result<u32, Fault> {
    match frame.values.get(v.index()) {
        Some(Some(x)) => Ok(*x),
        Some(None) => malformed(format!("{v} is used before it is defined")),
        None => malformed(format!("{v} is not a value of @{}", func.name)),
    }
}

fn value_type(func: &Function, v: Value) -> Result<crate::ir::Type, Fault> {
    match func.values.get(v.index()) {
        Some(data) => Ok(data.ty),
        None => malformed(format!("{v} is not a value of @{}", func.name)),
    }
}

fn define(frame: &mut Frame, v: Value, x: u32) -> Result<(), Fault> {
    match frame.values.get_mut(v.index()) {
        Some(slot) => {
            *slot = Some(x);
            Ok(())
        }
        None => malformed(format!("{v} does not exist")),
    }
}

fn define_result(func: &Function, frame: &mut Frame, inst: Inst, x: u32) -> Result<(), Fault> {
    match func.insts.get(inst.index()).and_then(|n| n.result) {
        Some(v) => define(frame, v, x),
        // A result nobody can name: nothing to record.
        None => Ok(()),
    }
}
