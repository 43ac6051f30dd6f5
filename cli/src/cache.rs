//! `concord cache info|clean`: the cache of Verilator-built RTL models
//! (`concord_testbench::verilator::cache`: location, entries, cleaning).

use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use clap::Subcommand;

use concord_testbench::verilator::cache::{self, EntryKind};

use crate::error::CliError;
use crate::output::{outln, write_stdout};

#[derive(Subcommand)]
pub enum CacheCommand {
    /// Show where the cache is and what it holds: each model's configuration, size and age.
    Info,
    /// Remove the cached models, failed builds and leftovers (builds running now are kept).
    Clean,
}

pub fn run(command: CacheCommand) -> Result<(), CliError> {
    let location = cache::cache_location(None).map_err(|e| e.to_string())?;
    let dir = &location.dir;
    match command {
        CacheCommand::Info => {
            outln!(
                "RTL model cache: {} ({})",
                dir.display(),
                location.source.describe()
            )?;
            if !dir.exists() {
                outln!("empty (the directory does not exist yet)")?;
                return Ok(());
            }
            write_stdout(info(dir)?.as_bytes())?;
        }
        CacheCommand::Clean => {
            if !dir.exists() {
                outln!("nothing to remove: {} does not exist", dir.display())?;
                return Ok(());
            }
            let done = cache::clean(dir).map_err(|e| e.to_string())?;
            outln!(
                "removed {} model{} and {} other item{} ({}) from {}",
                done.models,
                plural(done.models),
                done.other,
                plural(done.other),
                size(done.bytes),
                dir.display()
            )?;
            if !done.busy.is_empty() {
                outln!(
                    "kept {} model{} being built right now",
                    done.busy.len(),
                    plural(done.busy.len())
                )?;
            }
        }
    }
    Ok(())
}

/// The listing of `concord cache info` below its first line.
fn info(dir: &Path) -> Result<String, String> {
    let entries = cache::entries(dir).map_err(|e| e.to_string())?;
    let now = SystemTime::now();
    let models: Vec<_> = entries
        .iter()
        .filter(|e| e.kind == EntryKind::Model)
        .collect();
    let mut out = String::new();
    if models.is_empty() {
        out += "no models\n";
    } else {
        let total: u64 = models.iter().map(|e| e.bytes).sum();
        out += &format!(
            "{} model{}, {} in all:\n",
            models.len(),
            plural(models.len()),
            size(total)
        );
    }
    for e in &models {
        let (what, built) = match &e.manifest {
            Some(m) => {
                let mut what = m.label.clone().unwrap_or_else(|| "unlabelled".into());
                if m.trace {
                    what += ", VCD";
                }
                let at = UNIX_EPOCH + Duration::from_secs(m.built_at);
                (
                    what,
                    format!("built {} ({:.0} s)", age(now, at), m.build_seconds),
                )
            }
            None => (
                "no manifest (from an older concord, or damaged): rebuilt when used".into(),
                e.modified.map(|t| age(now, t)).unwrap_or_default(),
            ),
        };
        out += &format!(
            "  {}  {what:<48} {:>10}  {built}\n",
            &e.key[..12],
            size(e.bytes)
        );
    }
    let failed: Vec<_> = entries
        .iter()
        .filter(|e| e.kind == EntryKind::Failed)
        .collect();
    for e in &failed {
        out += &format!(
            "failed build {}: its log is {}\n",
            &e.key[..12],
            e.path.join(cache::LOG_FILE).display()
        );
    }
    let partial = entries
        .iter()
        .filter(|e| e.kind == EntryKind::Partial)
        .count();
    if partial > 0 {
        out += &format!(
            "{partial} unfinished build{} (running now, or killed: `concord cache clean` removes those)\n",
            plural(partial)
        );
    }
    Ok(out)
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

fn size(bytes: u64) -> String {
    const KIB: u64 = 1024;
    match bytes {
        b if b < KIB => format!("{b} B"),
        b if b < KIB * KIB => format!("{:.1} KiB", b as f64 / KIB as f64),
        b => format!("{:.1} MiB", b as f64 / (KIB * KIB) as f64),
    }
}

fn age(now: SystemTime, then: SystemTime) -> String {
    let s = now.duration_since(then).unwrap_or_default().as_secs();
    let (n, unit) = match s {
        0..=59 => return "just now".into(),
        60..=3599 => (s / 60, "minute"),
        3600..=86_399 => (s / 3600, "hour"),
        _ => (s / 86_400, "day"),
    };
    format!("{n} {unit}{} ago", plural(n as usize))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_ages_read_like_a_person_would_write_them() {
        assert_eq!(size(0), "0 B");
        assert_eq!(size(1023), "1023 B");
        assert_eq!(size(1536), "1.5 KiB");
        assert_eq!(size(5 * 1024 * 1024 + 1024 * 1024 / 2), "5.5 MiB");
        let t = UNIX_EPOCH + Duration::from_secs(1_000_000);
        let later = |s| t + Duration::from_secs(s);
        assert_eq!(age(later(59), t), "just now");
        assert_eq!(age(later(60), t), "1 minute ago");
        assert_eq!(age(later(7200), t), "2 hours ago");
        assert_eq!(age(later(3 * 86_400 + 5), t), "3 days ago");
        // A clock set back: not "in the future", just now.
        assert_eq!(age(t, later(10)), "just now");
    }
}
