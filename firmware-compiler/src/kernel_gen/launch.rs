//! The launch description of a generated kernel in the YAML form of
//! `docs/launch.md` (`program: kernel.cu`, inline `data:` or `fill:`
//! inputs, zeroed outputs, `outputs: [...]`).

use std::fmt::Write as _;

use concord_isa::launch::{Arg, ArgKind, Init};

/// Everything a launch file needs beyond the arguments.
pub(super) struct LaunchText<'a> {
    pub(super) seed: u64,
    pub(super) kernel_name: &'a str,
    pub(super) core_config: Option<&'a str>,
    pub(super) grid: [u32; 3],
    pub(super) block: [u32; 3],
    pub(super) args: &'a [Arg],
    pub(super) outputs: &'a [String],
}

impl LaunchText<'_> {
    pub(super) fn render(&self) -> String {
        let mut y = String::new();
        let _ = writeln!(y, "# Concord random kernel, kernel_gen seed {}", self.seed);
        let _ = writeln!(y, "program: kernel.cu");
        let _ = writeln!(y, "entry: {}", self.kernel_name);
        if let Some(config) = self.core_config {
            let _ = writeln!(y, "config: {config}");
        }
        let _ = writeln!(y, "grid: {}", dims(self.grid));
        let _ = writeln!(y, "block: {}", dims(self.block));
        let _ = writeln!(y, "args:");
        for arg in self.args {
            let _ = writeln!(y, "  - {}", arg_yaml(arg));
        }
        let _ = writeln!(y, "outputs: [{}]", self.outputs.join(", "));
        let _ = writeln!(y, "watchdog: {}", super::WATCHDOG);
        y
    }
}

fn dims(d: [u32; 3]) -> String {
    format!("[{}, {}, {}]", d[0], d[1], d[2])
}

fn arg_yaml(arg: &Arg) -> String {
    match &arg.kind {
        ArgKind::Scalar { ty, value } => {
            format!(
                "{{ name: {}, value: {value}, type: {} }}",
                arg.name,
                ty.name()
            )
        }
        ArgKind::Buffer { elem, len, init } => {
            let contents = match init {
                Init::Zeros => String::new(),
                Init::Data(values) => {
                    let list: Vec<String> = values.iter().map(i64::to_string).collect();
                    format!(", data: [{}]", list.join(", "))
                }
                Init::Range { start, end } => format!(", fill: {{ range: [{start}, {end}] }}"),
                Init::Random { seed, min, max } => {
                    format!(", fill: {{ random: {{ seed: {seed}, min: {min}, max: {max} }} }}")
                }
            };
            format!(
                "{{ name: {}, buffer: {}, len: {len}{contents} }}",
                arg.name,
                elem.name()
            )
        }
    }
}
