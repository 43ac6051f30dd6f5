//! The Wishbone protocol checker (docs/microarchitecture.md §20) on
//! hand-written signal sequences: the timelines of §14.3 and §14.5 and
//! other legal sequences report nothing; each rule, broken once, is
//! reported once, at the cycle that breaks it.

use concord_uarch::wishbone::{Checker, Rule, Signals, Violation};

/// A record from a compact description: `cyc stb we adr stall ack err`,
/// plus data words.
#[derive(Clone, Copy, Default)]
struct R {
    cyc: bool,
    stb: bool,
    we: bool,
    adr: u32,
    stall: bool,
    ack: bool,
    err: bool,
    dat_w: u32,
    dat_r: u32,
    sel: u128,
    tga: u8,
}

impl R {
    fn sig(self) -> Signals {
        let mut s = Signals {
            cyc: self.cyc,
            stb: self.stb,
            we: self.we,
            adr: self.adr,
            sel: self.sel,
            tga: self.tga,
            ack: self.ack,
            err: self.err,
            stall: self.stall,
            ..Signals::idle()
        };
        s.dat_w[0] = self.dat_w;
        s.dat_r[0] = self.dat_r;
        s
    }
}

const IDLE: R = R {
    cyc: false,
    stb: false,
    we: false,
    adr: 0,
    stall: false,
    ack: false,
    err: false,
    dat_w: 0,
    dat_r: 0,
    sel: 0,
    tga: 0,
};

/// Bus held (`cyc`), no request.
const HOLD: R = R { cyc: true, ..IDLE };

fn read(adr: u32) -> R {
    R {
        cyc: true,
        stb: true,
        adr,
        ..IDLE
    }
}

fn write(adr: u32, d: u32) -> R {
    R {
        we: true,
        dat_w: d,
        ..read(adr)
    }
}

fn with_ack(r: R) -> R {
    R { ack: true, ..r }
}

fn run(mut c: Checker, seq: &[R]) -> Vec<Violation> {
    let sigs: Vec<Signals> = seq.iter().map(|r| r.sig()).collect();
    c.run(&sigs)
}

/// `(cycle, rule)` of each violation.
fn found(v: &[Violation]) -> Vec<(u64, Rule)> {
    v.iter().map(|v| (v.cycle, v.rule)).collect()
}

fn host(seq: &[R]) -> Vec<(u64, Rule)> {
    found(&run(Checker::host_slave("wbs"), seq))
}

fn master(max: u32, seq: &[R]) -> Vec<(u64, Rule)> {
    found(&run(Checker::master("gm", max), seq))
}

// ---- legal sequences ----

/// §14.3's timeline: a write of D0 to A0 in c, a read of A1 in c + 1; ACKs
/// in c + 1 and c + 2, R(A1) in c + 2; cycle c is cycle 1 here.
#[test]
fn host_timeline_of_14_3_is_legal() {
    let (a0, d0, a1, r_a1) = (0x10001, 0xDEAD_BEEF, 0x10108, 0x0000_0102);
    let seq = [
        IDLE,
        write(a0, d0),
        with_ack(read(a1)),
        R {
            ack: true,
            dat_r: r_a1,
            ..HOLD
        },
        IDLE,
        IDLE,
    ];
    assert_eq!(host(&seq), vec![]);
}

/// Requests in every cycle, reads and writes mixed, each acknowledged in
/// the next cycle; read data only in the ACK of a read.
#[test]
fn host_back_to_back_requests_are_legal() {
    let mut seq = vec![IDLE];
    let reqs = [
        read(0x10100),
        read(0x10101),
        write(0x10000, 1),
        read(0x10108),
        write(5, 7),
        write(6, 8),
        read(0x10140),
        read(0x10141),
    ];
    let mut prev: Option<R> = None;
    for r in reqs.iter().copied().chain([HOLD]) {
        let mut cur = r;
        if let Some(p) = prev {
            cur.ack = true;
            if !p.we {
                cur.dat_r = 0x100 + p.adr;
            }
        }
        seq.push(cur);
        prev = Some(r).filter(|r| r.stb);
    }
    seq.push(IDLE);
    assert_eq!(host(&seq), vec![]);
}

/// §14.5's timeline: a 2-beat read, latency 3, the slave stalls b1 once;
/// cycle m + 1 is cycle 0. `N · NB` = 2 (one entry of two beats).
#[test]
fn master_timeline_of_14_5_is_legal() {
    let (b0, b1) = (0x100, 0x101);
    let stalled = R {
        stall: true,
        ..read(b1)
    };
    let ack = R {
        ack: true,
        dat_r: 0x55,
        ..HOLD
    };
    let seq = [
        IDLE,     // m+1
        read(b0), // m+2: b0 accepted
        stalled,  // m+3: b1 stalled
        read(b1), // m+4: b1 accepted
        ack,      // m+5: b0's ACK
        HOLD,     // m+6
        ack,      // m+7: b1's ACK
        HOLD,     // m+8
        IDLE,     // m+9: CYC drops
    ];
    assert_eq!(master(2, &seq), vec![]);
    // The checker counts the beats: 0 before, 2 after m+4, 0 at the end.
    let mut c = Checker::master("gm", 2);
    let mut outstanding = Vec::new();
    for r in &seq {
        c.step(&r.sig());
        outstanding.push(c.outstanding());
    }
    assert_eq!(outstanding, vec![0, 1, 1, 2, 1, 1, 0, 0, 0]);
}

/// Master: a long stall holds every field; writes with selects and an
/// atomic tag; ERR answers a beat like ACK.
#[test]
fn master_stalls_writes_tags_and_errors_are_legal() {
    let w = R {
        we: true,
        dat_w: 0x1234_5678,
        sel: 0b1100,
        tga: 3,
        ..read(0x40)
    };
    let seq = [
        IDLE,
        R { stall: true, ..w },
        R { stall: true, ..w },
        R { stall: true, ..w },
        w, // accepted in cycle 4
        read(0x41),
        R { err: true, ..HOLD },
        R {
            ack: true,
            dat_r: 9,
            ..HOLD
        },
        HOLD,
        IDLE,
    ];
    assert_eq!(master(4, &seq), vec![]);
}

// ---- each rule broken once ----

#[test]
fn stb_without_cyc() {
    let seq = [
        IDLE,
        IDLE,
        R {
            cyc: false,
            ..read(4)
        },
        IDLE,
    ];
    assert_eq!(master(8, &seq), vec![(2, Rule::StbWithoutCyc)]);
    assert_eq!(host(&seq), vec![(2, Rule::StbWithoutCyc)]);
}

/// Each field of a stalled request changed in the next cycle, and the
/// request dropped: reported in that next cycle (2).
#[test]
fn stalled_request_changed_or_dropped() {
    let base = R {
        we: true,
        dat_w: 0xAA,
        sel: 0xF,
        tga: 0,
        ..read(0x80)
    };
    let changes: Vec<(&str, R)> = vec![
        ("adr", R { adr: 0x81, ..base }),
        ("we", R { we: false, ..base }),
        (
            "dat",
            R {
                dat_w: 0xAB,
                ..base
            },
        ),
        ("sel", R { sel: 0x3, ..base }),
        ("tga", R { tga: 1, ..base }),
        ("stb dropped", HOLD),
    ];
    for (what, next) in changes {
        // A changed request is accepted in 2 and answered in 4; a dropped
        // one is never answered.
        let answer = R {
            ack: next.stb,
            ..HOLD
        };
        let seq = [
            IDLE,
            R {
                stall: true,
                ..base
            },
            next,
            HOLD,
            answer,
            IDLE,
        ];
        assert_eq!(
            master(8, &seq),
            vec![(2, Rule::StalledRequestChanged)],
            "{what}"
        );
    }
}

#[test]
fn cyc_dropped_with_beats_outstanding() {
    let seq = [
        IDLE,
        read(1),
        read(2),
        R { ack: true, ..HOLD },
        IDLE, // beat 2 still outstanding
        R { ack: true, ..HOLD },
        IDLE,
    ];
    assert_eq!(master(8, &seq), vec![(4, Rule::CycDropped)]);
}

#[test]
fn host_drops_cyc_before_its_ack() {
    let seq = [IDLE, read(0x10100), R { ack: true, ..IDLE }, IDLE];
    assert_eq!(host(&seq), vec![(2, Rule::CycDropped)]);
}

#[test]
fn too_many_beats_outstanding() {
    let ack = R { ack: true, ..HOLD };
    let seq = [
        IDLE,
        read(1),
        read(2),
        read(3), // third beat with two allowed
        ack,
        ack,
        ack,
        IDLE,
    ];
    assert_eq!(master(2, &seq), vec![(3, Rule::TooManyOutstanding)]);
    assert_eq!(master(3, &seq), vec![]);
    // Accepted in the cycle that answers another: not more than 2.
    let seq = [IDLE, read(1), read(2), with_ack(read(3)), ack, ack, IDLE];
    assert_eq!(master(2, &seq), vec![]);
}

#[test]
fn response_without_request() {
    // Nothing outstanding.
    let seq = [IDLE, HOLD, R { ack: true, ..HOLD }, IDLE];
    assert_eq!(master(8, &seq), vec![(2, Rule::ResponseWithoutRequest)]);
    // ERR too.
    let seq = [IDLE, HOLD, R { err: true, ..HOLD }, IDLE];
    assert_eq!(master(8, &seq), vec![(2, Rule::ResponseWithoutRequest)]);
    // An answer in the cycle of the request itself answers nothing yet.
    let seq = [IDLE, with_ack(read(1)), R { ack: true, ..HOLD }, IDLE];
    assert_eq!(master(8, &seq), vec![(1, Rule::ResponseWithoutRequest)]);
    // One beat, two ACKs.
    let seq = [
        IDLE,
        read(1),
        R { ack: true, ..HOLD },
        R { ack: true, ..HOLD },
        IDLE,
    ];
    assert_eq!(master(8, &seq), vec![(3, Rule::ResponseWithoutRequest)]);
    // The host slave: an ACK with no request in the previous cycle.
    let seq = [IDLE, HOLD, R { ack: true, ..HOLD }, IDLE];
    assert_eq!(host(&seq), vec![(2, Rule::ResponseWithoutRequest)]);
}

#[test]
fn ack_and_err_together() {
    let seq = [
        IDLE,
        read(1),
        R {
            ack: true,
            err: true,
            ..HOLD
        },
        IDLE,
    ];
    assert_eq!(master(8, &seq), vec![(2, Rule::AckAndErr)]);
}

/// A host request answered two cycles late: the missing ACK in c + 1, and
/// the late one, which answers no request of its previous cycle.
#[test]
fn host_request_without_ack_in_the_next_cycle() {
    let seq = [IDLE, read(0x10100), HOLD, R { ack: true, ..HOLD }, IDLE];
    assert_eq!(
        host(&seq),
        vec![(2, Rule::MissingAck), (3, Rule::ResponseWithoutRequest)]
    );
    // Never answered.
    let seq = [IDLE, write(0x10000, 1), HOLD, IDLE];
    assert_eq!(host(&seq), vec![(2, Rule::MissingAck)]);
}

#[test]
fn host_slave_stalls() {
    let seq = [
        IDLE,
        R {
            stall: true,
            ..HOLD
        },
        IDLE,
    ];
    assert_eq!(host(&seq), vec![(1, Rule::Stalled)]);
}

#[test]
fn host_read_data_outside_a_read_ack() {
    // In the ACK of a write.
    let seq = [
        IDLE,
        write(0x10001, 3),
        R {
            ack: true,
            dat_r: 3,
            ..HOLD
        },
        IDLE,
    ];
    assert_eq!(host(&seq), vec![(2, Rule::DataWithoutRead)]);
    // In an idle cycle.
    let seq = [IDLE, R { dat_r: 1, ..IDLE }, IDLE];
    assert_eq!(host(&seq), vec![(1, Rule::DataWithoutRead)]);
}

/// The report names the port, the cycle, the rule and shows the signals of
/// the cycle and the one before.
#[test]
fn violations_show_cycle_rule_and_signals() {
    let mut c = Checker::master("gm", 1).starting_at(100);
    c.step(
        &R {
            stall: true,
            ..read(0x80)
        }
        .sig(),
    );
    let v = c.step(&read(0x81).sig());
    assert_eq!(v.len(), 1);
    let v = &v[0];
    assert_eq!((v.cycle, v.rule), (101, Rule::StalledRequestChanged));
    assert_eq!(v.signals.adr, 0x81);
    assert_eq!(v.previous.unwrap().adr, 0x80);
    let text = v.to_string();
    assert!(
        text.starts_with("gm port, cycle 101: a stalled request"),
        "{text}"
    );
    assert!(
        text.contains("cycle 101: cyc=1 stb=1 we=0 adr=0x81"),
        "{text}"
    );
    assert!(
        text.contains("cycle 100: cyc=1 stb=1 we=0 adr=0x80"),
        "{text}"
    );
    assert!(text.contains("stall=1"), "{text}");
}

/// §14.5: `gm_tga_o = 1 + op`, `op` the `AtomOp` index in the order the
/// document lists them; 0 is a plain access; the tag fits 4 bits.
#[test]
fn atomic_tags_are_the_documented_ones() {
    use concord_isa::instr::AtomOp;
    use concord_uarch::wishbone::{atomic_tag, tag_op, TAG_BITS, TAG_PLAIN};
    let doc = include_str!("../../docs/microarchitecture.md");
    let at = doc.find("(`op` = the `AtomOp` index 0..8:").unwrap();
    let list = &doc[at..at + doc[at..].find(')').unwrap()];
    let names: Vec<&str> = list
        .split(':')
        .nth(1)
        .unwrap()
        .split(',')
        .map(|s| s.trim())
        .collect();
    assert_eq!(names.len(), 9);
    for (i, name) in names.iter().enumerate() {
        let op = AtomOp::ALL.iter().find(|o| o.suffix() == *name).unwrap();
        assert_eq!(atomic_tag(*op), 1 + i as u8, "{name}");
        assert_eq!(tag_op(1 + i as u8), Some(*op));
        assert!((atomic_tag(*op) as usize) < 1 << TAG_BITS);
    }
    assert_eq!(tag_op(TAG_PLAIN), None);
    assert_eq!(tag_op(10), None);
}
