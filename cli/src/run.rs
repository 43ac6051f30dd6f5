//! `concord run`: a launch description on the functional model.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use serde_json::json;

use concord_isa::config::CoreConfig;
use concord_isa::func::{self, Issue, Observer, Options, Stats};
use concord_isa::launch::{load_program, LaunchDescription, PreparedLaunch};
use concord_isa::mask::LaneMask;

#[derive(Args)]
pub struct RunArgs {
    /// Launch description (YAML): program, grid, block, arguments, outputs.
    launch: PathBuf,
    /// Core configuration; overrides the launch description's `config:`.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Write one JSON object per issue (warp, pc, mask, ...) to this file.
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
    /// Print one JSON object with `outputs` and `stats` instead of text.
    #[arg(long)]
    json: bool,
}

/// Writes the per-issue trace as JSON Lines.
struct TraceWriter {
    out: std::io::BufWriter<std::fs::File>,
    lanes: usize,
    error: Option<std::io::Error>,
}

impl Observer for TraceWriter {
    fn issue(&mut self, i: &Issue) {
        if self.error.is_some() {
            return;
        }
        let line = json!({
            "issue": i.index,
            "block": i.block,
            "warp": i.warp,
            "pc": i.pc,
            "mask": LaneMask::new(i.active, self.lanes).to_string(),
            "exec": LaneMask::new(i.executing, self.lanes).to_string(),
        });
        if let Err(e) = writeln!(self.out, "{line}") {
            self.error = Some(e);
        }
    }
}

pub fn run(args: RunArgs) -> Result<(), String> {
    let desc = LaunchDescription::load(&args.launch).map_err(|e| e.to_string())?;
    let config_path = args.config.clone().or_else(|| desc.config.clone());
    let config = match &config_path {
        Some(p) => CoreConfig::load(p).map_err(|e| e.to_string())?,
        None => CoreConfig::default(),
    };
    let kernel = load_program(&desc.program).map_err(|e| e.to_string())?;
    let prepared = desc.prepare(&kernel, &config).map_err(|e| e.to_string())?;

    let mut global = prepared.global.clone();
    let launch = func::Launch {
        code: &kernel.code,
        entry_pc: prepared.entry_pc,
        grid: prepared.grid,
        block: prepared.block,
        params: &prepared.params,
    };
    let options = Options {
        watchdog: prepared.watchdog,
    };
    let mut tracer = match &args.trace {
        Some(path) => Some(TraceWriter {
            out: std::io::BufWriter::new(
                std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?,
            ),
            lanes: config.lanes as usize,
            error: None,
        }),
        None => None,
    };
    let result = func::run(
        &config,
        &launch,
        &mut global,
        options,
        tracer.as_mut().map(|t| t as &mut dyn Observer),
    );
    if let (Some(t), Some(path)) = (tracer.as_mut(), &args.trace) {
        let flushed = t.out.flush();
        if let Some(e) = t.error.take().or(flushed.err()) {
            return Err(format!("{}: {e}", path.display()));
        }
    }
    let stats = result.map_err(|trap| trap.to_string())?;
    report(&args, &desc, &config, &prepared, &global, &stats);
    Ok(())
}

fn stats_json(stats: &Stats) -> serde_json::Value {
    let mut v = serde_json::to_value(stats).expect("stats serialize");
    v["simd_efficiency"] = json!(stats.simd_efficiency());
    v
}

fn report(
    args: &RunArgs,
    desc: &LaunchDescription,
    config: &CoreConfig,
    prepared: &PreparedLaunch,
    global: &[u8],
    stats: &Stats,
) {
    let outputs = prepared.read_outputs(global);
    if args.json {
        let mut out = serde_json::Map::new();
        for (name, _, values) in &outputs {
            out.insert(name.clone(), json!(values));
        }
        let doc = json!({ "model": "functional", "outputs": out, "stats": stats_json(stats) });
        println!("{doc}");
        return;
    }
    println!(
        "{} on the functional model: {} lanes x {} warps, {} arbitration; grid {:?}, block {:?}",
        desc.program.display(),
        config.lanes,
        config.warps,
        config.arbitration.name(),
        prepared.grid,
        prepared.block
    );
    for (name, elem, values) in &outputs {
        const SHOWN: usize = 16;
        let head: Vec<String> = values.iter().take(SHOWN).map(|v| v.to_string()).collect();
        let more = if values.len() > SHOWN {
            format!(", ... ({} values)", values.len())
        } else {
            String::new()
        };
        println!(
            "  {name}: {}[{}] = [{}{}]",
            elem.name(),
            values.len(),
            head.join(", "),
            more
        );
    }
    println!(
        "  issued {} warp-instructions, {} active lane-slots, SIMD efficiency {:.1}%",
        stats.issued,
        stats.active_lane_slots,
        100.0 * stats.simd_efficiency()
    );
    println!(
        "  divergent branches {}, consensual branches taken {} / not taken {}, barriers {}",
        stats.divergent_branches,
        stats.consensual_taken,
        stats.consensual_not_taken,
        stats.barriers
    );
}
