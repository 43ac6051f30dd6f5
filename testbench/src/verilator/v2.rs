//! The Core v2 RTL under Verilator: one clock cycle at a time, with both
//! Wishbone ports as `concord_uarch::wishbone::Signals` records and the
//! trace port unpacked into a `concord_uarch::trace::TraceRecord`
//! (docs/microarchitecture.md §14.2, §15.2, §15.4).
//!
//! It sits between the shared harness ([`super::cache`] builds and caches
//! the library, the shim is generated from `concord_uarch::ports::core_ports`)
//! and the lock-step driver (`crate::lockstep`), which runs it beside the
//! cycle model. The Verilog comes from the caller
//! (`concord_hdl::v2::core::core_verilog`), since the generator is not a
//! dependency of this crate.
//!
//! One cycle *c* ([`RtlV2::cycle`], §15.4): the outputs visible during *c*
//! (registered at the end of *c − 1*) give the master's request to the
//! testbench memory, which answers with `gm_stall_i`, `gm_ack_i`,
//! `gm_err_i`, `gm_dat_i` of *c*; the host script's `wbs_*` inputs and
//! that answer are driven; the rising edge; the outputs are read again:
//! the trace record of *c* and the outputs of *c + 1*.

use std::path::Path;
use std::ptr::NonNull;

use concord_isa::config::CoreConfig;
use concord_uarch::ports::{core_ports, Dir, Port};
use concord_uarch::trace::{TraceLayout, TraceRecord};
use concord_uarch::wishbone::{Signals, MAX_BUS_WORDS};
use concord_uarch::{GenOptions, HwParams};

use super::ffi::{Api, Sim};
use super::{BuildOptions, HarnessError, RESET_CYCLES};
use crate::pipeline::WishboneMemory;

/// Where a port's words lie in the packed input or output vector.
#[derive(Clone, Copy, Debug)]
struct Slot {
    at: usize,
    words: usize,
}

/// The packed vectors' layout, by port (`shim::packed_inputs`,
/// `shim::packed_outputs`).
#[derive(Clone, Copy, Debug)]
struct Layout {
    rst: Slot,
    wbs_cyc_i: Slot,
    wbs_stb_i: Slot,
    wbs_we_i: Slot,
    wbs_adr_i: Slot,
    wbs_dat_i: Slot,
    gm_dat_i: Slot,
    gm_ack_i: Slot,
    gm_err_i: Slot,
    gm_stall_i: Slot,
    wbs_dat_o: Slot,
    wbs_ack_o: Slot,
    wbs_stall_o: Slot,
    gm_cyc_o: Slot,
    gm_stb_o: Slot,
    gm_we_o: Slot,
    gm_adr_o: Slot,
    gm_sel_o: Slot,
    gm_dat_o: Slot,
    gm_tga_o: Slot,
    running_o: Slot,
    done_o: Slot,
    trapped_o: Slot,
    irq_o: Slot,
    tr_record: Option<Slot>,
}

fn slot_of(list: &[Port], name: &str, what: &'static str) -> Result<Slot, HarnessError> {
    let mut at = 0;
    for p in list {
        if p.name == name {
            return Ok(Slot {
                at,
                words: p.words(),
            });
        }
        at += p.words();
    }
    Err(HarnessError::NoSuchPort {
        what,
        name: name.to_string(),
    })
}

impl Layout {
    fn new(ports: &[Port]) -> Result<Layout, HarnessError> {
        let ins = super::shim::packed_inputs(ports);
        let outs = super::shim::packed_outputs(ports);
        let i = |n| slot_of(&ins, n, "input");
        let o = |n| slot_of(&outs, n, "output");
        Ok(Layout {
            rst: i("rst")?,
            wbs_cyc_i: i("wbs_cyc_i")?,
            wbs_stb_i: i("wbs_stb_i")?,
            wbs_we_i: i("wbs_we_i")?,
            wbs_adr_i: i("wbs_adr_i")?,
            wbs_dat_i: i("wbs_dat_i")?,
            gm_dat_i: i("gm_dat_i")?,
            gm_ack_i: i("gm_ack_i")?,
            gm_err_i: i("gm_err_i")?,
            gm_stall_i: i("gm_stall_i")?,
            wbs_dat_o: o("wbs_dat_o")?,
            wbs_ack_o: o("wbs_ack_o")?,
            wbs_stall_o: o("wbs_stall_o")?,
            gm_cyc_o: o("gm_cyc_o")?,
            gm_stb_o: o("gm_stb_o")?,
            gm_we_o: o("gm_we_o")?,
            gm_adr_o: o("gm_adr_o")?,
            gm_sel_o: o("gm_sel_o")?,
            gm_dat_o: o("gm_dat_o")?,
            gm_tga_o: o("gm_tga_o")?,
            running_o: o("running_o")?,
            done_o: o("done_o")?,
            trapped_o: o("trapped_o")?,
            irq_o: o("irq_o")?,
            tr_record: ports
                .iter()
                .any(|p| p.name == "tr_record" && p.dir == Dir::Out)
                .then(|| o("tr_record"))
                .transpose()?,
        })
    }
}

/// The status pins (`running_o`, `done_o`, `trapped_o`, `irq_o`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pins {
    pub running: bool,
    pub done: bool,
    pub trapped: bool,
    pub irq: bool,
}

/// What one cycle showed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct V2Cycle {
    /// The host port during the cycle: the script's inputs and the slave's
    /// (registered) outputs.
    pub host: Signals,
    /// The global-memory port during the cycle: the master's (registered)
    /// outputs and the memory's answer.
    pub gm: Signals,
    /// The record of the cycle (the trace port after its edge), in cores
    /// built with the trace port while [`RtlV2::set_unpack_trace`] is on.
    pub trace: Option<TraceRecord>,
    /// The status pins after the cycle's edge (the core's state during the
    /// next cycle).
    pub pins: Pins,
}

/// A Verilated Core v2 `concord_core`.
pub struct RtlV2 {
    api: &'static Api,
    sim: NonNull<Sim>,
    hw: HwParams,
    gen: GenOptions,
    layout: Layout,
    cache_hit: bool,
    key: String,
    cycles: u64,
    inputs: Vec<u32>,
    outputs: Vec<u32>,
    trace_bits: Vec<u64>,
    /// The last record unpacked, overwritten in place; unpacked again only
    /// when the port changes (long waits repeat records).
    record: TraceRecord,
    /// `record` holds the port's value (`trace_bits`).
    record_valid: bool,
    /// Whether [`RtlV2::step`] unpacks the trace port at all.
    unpack_trace: bool,
    /// The trace port's field layout, computed once.
    trace_layout: TraceLayout,
}

// SAFETY: the Verilated instance has its own context and no
// thread affinity, and is reached only through `&mut self`; the library is
// never unloaded.
unsafe impl Send for RtlV2 {}

impl Drop for RtlV2 {
    fn drop(&mut self) {
        // SAFETY: `sim` came from this library's `concord_new` and is freed
        // exactly once, here; the library outlives it (never unloaded).
        unsafe { (self.api.free)(self.sim.as_ptr()) }
    }
}

impl std::fmt::Debug for RtlV2 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RtlV2")
            .field("library", &self.api.path)
            .field("cache_hit", &self.cache_hit)
            .field("cycles", &self.cycles)
            .finish()
    }
}

impl RtlV2 {
    /// Builds `verilog`, the v2 core of `config` generated with `gen` (or
    /// finds it in the cache), and creates a model, reset. The port list
    /// the shim is generated from is `core_ports(config, gen)`.
    pub fn build(
        verilog: &str,
        config: &CoreConfig,
        gen: &GenOptions,
        options: &BuildOptions,
    ) -> Result<RtlV2, HarnessError> {
        let hw = HwParams::new(config).map_err(|e| HarnessError::Config(e.to_string()))?;
        let ports = core_ports(&hw, gen);
        let layout = Layout::new(&ports)?;
        let (api, cache_hit, key) = super::load_checked(verilog, &ports, options)?;
        // SAFETY: no preconditions; a null return is handled.
        let sim = NonNull::new(unsafe { (api.new)() }).ok_or(HarnessError::Create)?;
        let trace_words = layout.tr_record.map_or(0, |s| s.words);
        let trace_layout = TraceLayout::new(&hw);
        let mut rtl = RtlV2 {
            api,
            sim,
            hw,
            gen: *gen,
            layout,
            cache_hit,
            key,
            cycles: 0,
            inputs: vec![0; api.input_words],
            outputs: vec![0; api.output_words],
            trace_bits: vec![0; trace_words.div_ceil(2)],
            record: TraceRecord::default(),
            record_valid: false,
            unpack_trace: true,
            trace_layout,
        };
        rtl.reset();
        Ok(rtl)
    }

    /// Whether the library was built with VCD support
    /// ([`BuildOptions::trace`]).
    pub fn traced(&self) -> bool {
        self.api.traced
    }

    /// The shared library this model runs.
    pub fn library_path(&self) -> &Path {
        &self.api.path
    }

    /// Whether [`RtlV2::build`] found the library in the cache.
    pub fn cache_hit(&self) -> bool {
        self.cache_hit
    }

    /// The build's cache key.
    pub fn cache_key(&self) -> &str {
        &self.key
    }

    /// The core's parameters.
    pub fn hw(&self) -> &HwParams {
        &self.hw
    }

    /// The generator options it was built with.
    pub fn gen(&self) -> &GenOptions {
        &self.gen
    }

    /// Clock cycles run by [`RtlV2::step`] since the last reset.
    pub fn cycles(&self) -> u64 {
        self.cycles
    }

    /// Holds `rst` for [`RESET_CYCLES`] cycles with every other input 0,
    /// then releases it: the next cycle is cycle 0.
    pub fn reset(&mut self) {
        self.inputs.fill(0);
        self.put(self.layout.rst, &[1]);
        for _ in 0..RESET_CYCLES {
            self.tick();
        }
        self.inputs.fill(0);
        self.cycles = 0;
        self.record_valid = false;
        self.read_outputs();
    }

    fn put(&mut self, s: Slot, value: &[u32]) {
        let dst = &mut self.inputs[s.at..s.at + s.words];
        dst.fill(0);
        for (d, v) in dst.iter_mut().zip(value) {
            *d = *v;
        }
    }

    fn word(&self, s: Slot) -> u32 {
        self.outputs[s.at]
    }

    fn bit(&self, s: Slot) -> bool {
        self.outputs[s.at] & 1 == 1
    }

    fn tick(&mut self) {
        // SAFETY: `sim` is live (see `Drop`), `&mut self` excludes other
        // users; `inputs` has the library's `concord_input_words` words
        // (checked at load).
        unsafe {
            (self.api.set_inputs)(self.sim.as_ptr(), self.inputs.as_ptr());
            (self.api.tick)(self.sim.as_ptr());
        }
    }

    fn read_outputs(&mut self) {
        // SAFETY: as in `tick`; `outputs` has `concord_output_words` words.
        unsafe { (self.api.get_outputs)(self.sim.as_ptr(), self.outputs.as_mut_ptr()) }
    }

    /// The master's outputs visible now (during the next cycle), as the
    /// master's half of a [`Signals`] record.
    pub fn master(&self) -> Signals {
        let l = &self.layout;
        let mut s = Signals {
            cyc: self.bit(l.gm_cyc_o),
            stb: self.bit(l.gm_stb_o),
            we: self.bit(l.gm_we_o),
            adr: self.word(l.gm_adr_o),
            tga: self.word(l.gm_tga_o) as u8,
            ..Signals::idle()
        };
        for (i, w) in self.outputs[l.gm_sel_o.at..l.gm_sel_o.at + l.gm_sel_o.words]
            .iter()
            .enumerate()
        {
            s.sel |= u128::from(*w) << (32 * i);
        }
        let dat = &self.outputs[l.gm_dat_o.at..l.gm_dat_o.at + l.gm_dat_o.words];
        s.dat_w[..dat.len()].copy_from_slice(dat);
        s
    }

    /// The host slave's outputs visible now: `host` (the master's inputs
    /// of the coming cycle) with `wbs_dat_o`, `wbs_ack_o`, `wbs_stall_o`.
    fn host_record(&self, host: &Signals) -> Signals {
        let l = &self.layout;
        let mut dat_r = [0; MAX_BUS_WORDS];
        dat_r[0] = self.word(l.wbs_dat_o);
        Signals {
            dat_r,
            ack: self.bit(l.wbs_ack_o),
            err: false,
            stall: self.bit(l.wbs_stall_o),
            ..*host
        }
    }

    /// The status pins visible now.
    pub fn pins(&self) -> Pins {
        let l = &self.layout;
        Pins {
            running: self.bit(l.running_o),
            done: self.bit(l.done_o),
            trapped: self.bit(l.trapped_o),
            irq: self.bit(l.irq_o),
        }
    }

    /// One clock cycle: `host` is what the host drives (`cyc`, `stb`,
    /// `we`, `adr`, `dat_w[0]`), `gm` the global-memory port's record of
    /// the cycle whose slave half (`dat_r`, `ack`, `err`, `stall`) is
    /// driven. Returns both ports' records of the cycle (the core's halves
    /// as they were during it), the trace record of the cycle and the pins
    /// after it.
    pub fn step(&mut self, host: &Signals, gm: &Signals) -> V2Cycle {
        let l = self.layout;
        let host_port = self.host_record(host);
        let gm_port = Signals {
            dat_r: gm.dat_r,
            ack: gm.ack,
            err: gm.err,
            stall: gm.stall,
            ..self.master()
        };
        self.put(l.wbs_cyc_i, &[host.cyc as u32]);
        self.put(l.wbs_stb_i, &[host.stb as u32]);
        self.put(l.wbs_we_i, &[host.we as u32]);
        self.put(l.wbs_adr_i, &[host.adr]);
        self.put(l.wbs_dat_i, &host.dat_w[..1]);
        self.put(l.gm_dat_i, &gm.dat_r[..l.gm_dat_i.words]);
        self.put(l.gm_ack_i, &[gm.ack as u32]);
        self.put(l.gm_err_i, &[gm.err as u32]);
        self.put(l.gm_stall_i, &[gm.stall as u32]);
        self.tick();
        self.cycles += 1;
        self.read_outputs();
        let trace = match l.tr_record {
            Some(s) if self.unpack_trace => Some(self.unpack(s)),
            _ => None,
        };
        V2Cycle {
            host: host_port,
            gm: gm_port,
            trace,
            pins: self.pins(),
        }
    }

    /// Whether [`RtlV2::step`] unpacks the trace port into
    /// [`V2Cycle::trace`] (on after [`RtlV2::build`]). A run that reads
    /// only the ports and pins (the RTL alone, without a per-cycle hook)
    /// turns it off and saves the unpacking and the record's copy.
    pub fn set_unpack_trace(&mut self, on: bool) {
        self.unpack_trace = on;
        self.record_valid = false;
    }

    /// The trace port's record, from `outputs` at `s`: unpacked into
    /// `record` only when the port differs from the last one unpacked.
    fn unpack(&mut self, s: Slot) -> TraceRecord {
        let mut same = self.record_valid;
        for (i, b) in self.trace_bits.iter_mut().enumerate() {
            let lo = self.outputs[s.at + 2 * i];
            let hi = if 2 * i + 1 < s.words {
                self.outputs[s.at + 2 * i + 1]
            } else {
                0
            };
            let word = u64::from(lo) | u64::from(hi) << 32;
            same &= *b == word;
            *b = word;
        }
        if !same {
            self.trace_layout
                .unpack_into(&self.trace_bits, &mut self.record);
            self.record_valid = true;
        }
        self.record.clone()
    }

    /// Starts writing a VCD of every signal to `path`, in builds with
    /// [`BuildOptions::trace`]; cycle *c* settles at `10c` and its rising
    /// edge is at `10c + 5`.
    pub fn open_vcd(&mut self, path: &Path) -> Result<(), HarnessError> {
        super::open_vcd(self.api, self.sim, path)
    }

    /// Finishes and closes the VCD file (also done when the model drops).
    pub fn close_vcd(&mut self) {
        // SAFETY: as in `tick`.
        unsafe { (self.api.vcd_close)(self.sim.as_ptr()) }
    }

    /// One clock cycle with the global-memory port answered by `memory`
    /// (§10.4, §15.4 step 1): the memory sees the master's outputs of the
    /// cycle and answers; then [`RtlV2::step`].
    pub fn cycle(&mut self, host: &Signals, memory: &mut WishboneMemory) -> V2Cycle {
        let gm = memory.cycle(&self.master());
        self.step(host, &gm)
    }
}
