//! # ChangeUID
//!
//! `ChangeUID()`
//!
//! **Category:** userlevel. Gives up set-user-ID privileges.
//!
//! **Ports:** none.
//!
//! ## Description
//!
//! Sets the process's effective group ID to its real group ID, then its
//! effective user ID to its real user ID, so that a `click` installed
//! set-user-ID root keeps no more rights than the user who started it.
//! It takes no arguments.
//!
//! ChangeUID configures right after the elements that need privileges to
//! configure (FromDevice, ToDevice, KernelTun: phase `PRIVILEGED`) and
//! before the others, so in
//!
//! ```text
//! FromDevice(eth0) -> ...;
//! FromDump(/root/secret.pcap) -> ...;
//! ChangeUID();
//! ```
//!
//! FromDump's file is opened with the user's rights. Elements that open
//! their files or sockets when the router initializes (after every
//! element is configured) also do so without privileges. For a process
//! that is not set-user-ID, ChangeUID changes nothing.
//!
//! A failure to change an ID is a configuration error naming the system
//! call (`setgid: Operation not permitted`).
//!
//! ## Handlers
//!
//! None beyond every element's.
//!
//! ## See also
//!
//! FromDevice, ToDevice

use rclick_core::args::Args;
use rclick_core::element::phase;
use rclick_core::{ConfigureCx, Element};

/// Click's ChangeUID. See the module documentation.
#[derive(Default)]
pub struct ChangeUid;

/// Sets the effective group and user IDs to the real ones.
fn drop_privileges() -> Result<(), String> {
    // SAFETY: getgid/getuid only read the process's credentials;
    // setgid/setuid take plain integers and report failure by their
    // return value and errno, touching no memory of ours.
    unsafe {
        if libc::setgid(libc::getgid()) != 0 {
            return Err(format!("setgid: {}", std::io::Error::last_os_error()));
        }
        if libc::setuid(libc::getuid()) != 0 {
            return Err(format!("setuid: {}", std::io::Error::last_os_error()));
        }
    }
    Ok(())
}

impl Element for ChangeUid {
    fn class_name(&self) -> &'static str {
        "ChangeUID"
    }

    fn port_count(&self) -> &'static str {
        "0/0"
    }

    fn configure_phase(&self) -> i32 {
        phase::PRIVILEGED + 1
    }

    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        Args::new(conf).complete().map_err(|e| e.to_string())?;
        drop_privileges()
    }
}

#[cfg(test)]
mod tests {
    use crate::device::test_util::{build_err, registry};
    use rclick_core::testing;

    /// Checked against Click: no arguments; extra ones are refused.
    #[test]
    fn takes_no_arguments() {
        let e = build_err("ChangeUID(1)");
        assert!(
            e.contains("While configuring 'ChangeUID@1 :: ChangeUID'"),
            "{e}"
        );
        assert!(e.contains("too many arguments"), "{e}");
    }

    /// In a process that is not set-user-ID, the IDs stay as they were
    /// and the router builds.
    #[test]
    fn unprivileged_process_keeps_its_ids() {
        // SAFETY: these calls only read the process's credentials.
        let before = unsafe {
            (
                libc::getuid(),
                libc::geteuid(),
                libc::getgid(),
                libc::getegid(),
            )
        };
        let r = testing::build("c :: ChangeUID(); Idle -> Discard;", &registry(), true).unwrap();
        assert_eq!(r.read_handler("c.class", "").unwrap(), "ChangeUID");
        // SAFETY: as above.
        let after = unsafe {
            (
                libc::getuid(),
                libc::geteuid(),
                libc::getgid(),
                libc::getegid(),
            )
        };
        assert_eq!(before, after);
        assert_eq!(after.0, after.1);
        assert_eq!(after.2, after.3);
    }

    /// It configures after the privileged elements and before the rest.
    #[test]
    fn configures_after_privileged_elements() {
        use rclick_core::element::phase;
        use rclick_core::Element;
        let p = super::ChangeUid.configure_phase();
        assert!(p > phase::PRIVILEGED && p < phase::DEFAULT);
    }
}
