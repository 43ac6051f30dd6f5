//! Warp, lane and block-slot state (§5.1–§5.3), readiness (§5.4) and the
//! warp state codes (§5.5).

/// Per-warp state (§5.1, §5.2).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct WarpState {
    pub gmask: u32,
    pub gpc: u32,
    pub gdepth: u32,
    pub alive: u32,
    pub waiting: u32,
    pub replay: bool,
    pub busy_i: bool,
    pub busy_r: bool,
    pub rearb: bool,
    pub outstanding: u32,
    /// Block slot, and index within the block (`%warpid`); `None` while
    /// the warp belongs to no block.
    pub wslot: Option<usize>,
    pub wib: u32,
    /// `pred[p]` for `p` in 1..P (`pred[0]` unused: `pt`).
    pub pred: [u32; 8],
    /// Stored lane PCs (exact for lanes outside the group).
    pub pc: [u32; 32],
    /// Lane call depths (always exact).
    pub depth: [u32; 32],
    /// Thread ids (x, y, z) written by the launch walk.
    pub tid: [[u32; 3]; 32],
}

impl WarpState {
    pub fn schedulable(&self) -> u32 {
        self.alive & !self.waiting
    }
}

/// Block-slot states (§5.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) enum SlotState {
    #[default]
    Free,
    Launch,
    Run,
    Frozen,
}

/// Per block slot (§5.3).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Slot {
    pub state: SlotState,
    pub ctaid: [u32; 3],
    /// The block's position in grid order (x fastest).
    pub index: u64,
    pub arrived: u32,
    pub exited: u32,
    /// Launch sequence number: a lower one is older (the age matrix).
    pub age: u64,
}

/// Warp state codes (§5.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WarpCode {
    Empty = 0,
    Launch = 1,
    Inactive = 2,
    Busy = 3,
    Rearb = 4,
    Ready = 5,
    Memwait = 6,
    Barrier = 7,
}

impl super::Pipeline {
    /// §5.4, from the state at the start of the cycle.
    pub(crate) fn ready(&self, w: usize) -> bool {
        let warp = &self.warps[w];
        let Some(s) = warp.wslot else { return false };
        self.slots[s].state == SlotState::Run
            && !warp.busy_i
            && !warp.busy_r
            && !warp.rearb
            && warp.gmask != 0
            && (warp.replay || warp.outstanding == 0)
    }

    /// §5.5: first matching row wins.
    pub(crate) fn warp_code(&self, w: usize) -> WarpCode {
        let warp = &self.warps[w];
        let Some(s) = warp.wslot else {
            return WarpCode::Empty;
        };
        match self.slots[s].state {
            SlotState::Free => return WarpCode::Empty,
            SlotState::Launch => return WarpCode::Launch,
            SlotState::Frozen => return WarpCode::Inactive,
            SlotState::Run => {}
        }
        if warp.alive == 0 {
            WarpCode::Inactive
        } else if warp.busy_i || warp.busy_r {
            WarpCode::Busy
        } else if warp.rearb {
            WarpCode::Rearb
        } else if self.ready(w) {
            WarpCode::Ready
        } else if warp.gmask != 0 && !warp.replay && warp.outstanding > 0 {
            WarpCode::Memwait
        } else {
            WarpCode::Barrier
        }
    }
}
