//! Click's low-level RPCs (LLRPCs): numbered calls that pass a flat byte
//! buffer to an element ([`crate::Element::llrpc`]), used by ControlSocket's
//! `LLRPC` command.
//!
//! Numbers here are in Click's portable ("network") form: bits 30 and 31
//! say whether data flows out of and into the element, bits 16-27 give the
//! buffer size, bit 14 marks "flat" calls (no pointers inside).

use super::ctx::Ctx;
use super::ElementId;

/// Data flows from the caller to the element.
pub const IOC_IN: u32 = 0x8000_0000;
/// Data flows from the element back to the caller.
pub const IOC_OUT: u32 = 0x4000_0000;
/// No data.
pub const IOC_VOID: u32 = 0x2000_0000;
/// May run in parallel with reads.
pub const IOC_SAFE: u32 = 0x0000_8000;
/// The buffer holds no pointers: callable remotely.
pub const IOC_FLAT: u32 = 0x0000_4000;

/// The buffer size an LLRPC number declares.
pub const fn ioc_size(command: u32) -> usize {
    ((command >> 16) & 0xFFF) as usize
}

/// Click's `CLICK_LLRPC_GET_SWITCH`: reads a 4-byte output number.
pub const GET_SWITCH: u32 = IOC_OUT | IOC_SAFE | IOC_FLAT | (4 << 16) | 5;
/// Click's `CLICK_LLRPC_SET_SWITCH`: sets the output from a 4-byte number.
pub const SET_SWITCH: u32 = IOC_IN | IOC_FLAT | (4 << 16) | 6;
/// Click's `CLICK_LLRPC_GET_RATE`.
pub const GET_RATE: u32 = IOC_IN | IOC_OUT | IOC_SAFE | IOC_FLAT | (4 << 16) | 1;
/// Click's `CLICK_LLRPC_GET_COUNT`.
pub const GET_COUNT: u32 = IOC_IN | IOC_OUT | IOC_SAFE | IOC_FLAT | (4 << 16) | 3;

/// errno `EINVAL`: unknown LLRPC or bad argument.
pub const EINVAL: i32 = 22;
/// errno `EBUSY`: the element is running further up this call stack.
pub const EBUSY: i32 = 16;

impl Ctx<'_> {
    /// Calls LLRPC `command` on element `e` with `data` (read and written in
    /// place).
    pub fn call_llrpc(&mut self, e: ElementId, command: u32, data: &mut [u8]) -> Result<(), i32> {
        if e >= self.rt.slots.len() {
            return Err(EINVAL);
        }
        self.enter_and(e, false, |g, cx| g.llrpc(command, data, cx))
            .map_err(|_| EBUSY)?
    }

    /// Number of elements in the router.
    pub fn nelements(&self) -> usize {
        self.rt.info.len()
    }

    /// Whether the driver was told to end at once ([`Ctx::quit`], or a hot
    /// swap is replacing this router): long-running work should stop and
    /// leave what is left for the replacement.
    pub fn is_quitting(&self) -> bool {
        self.rt.quit.load(std::sync::atomic::Ordering::Acquire)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_match_click() {
        assert_eq!(GET_SWITCH, 0x4004_C005);
        assert_eq!(SET_SWITCH, 0x8004_4006);
        assert_eq!(ioc_size(GET_SWITCH), 4);
    }
}
