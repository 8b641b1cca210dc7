//! Handlers declared once: the [`handlers!`](crate::handlers) macro.
//!
//! An element's handlers used to be kept in step by hand in four places:
//! an id constant, an entry in [`Element::handlers`], a match arm in
//! `read_handler`/`write_handler`, and a line in the manual. With the
//! macro they are one table:
//!
//! ```
//! rclick_core::handlers! {
//!     /// Counter's handlers.
//!     enum H {
//!         Count = read("count"),
//!         Reset = write("reset", "reset_counts"),
//!         CountCall = read_write("count_call"),
//!         Table = read("table").expensive(),
//!     }
//! }
//! assert_eq!(H::from_id(H::Reset.id()), Some(H::Reset));
//! let names: Vec<_> = H::all_defs().into_iter().map(|d| d.name).collect();
//! assert_eq!(names, ["count", "reset", "reset_counts", "count_call", "table"]);
//! ```
//!
//! The enum gives dispatch: `match H::from_id(id)` in `read_handler` is
//! checked for exhaustiveness by the compiler, and an unknown id is `None`.
//! `H::all_defs()` is what `Element::handlers` returns (or extends, when
//! some handlers exist only under some configurations: `H::Foo.defs()`
//! gives one entry's definitions). The manual's `## Handlers` section is
//! checked against the definitions for every class by the
//! `manual_lists_handlers` test in rclick-cli.
//!
//! Each entry is `Variant = CTOR("name", ...)` followed by any of
//! `.expensive()`, `.raw()`, where CTOR is one of [`HandlerDef`]'s
//! constructors taking `(name, id)`: `read`, `write`, `read_write`,
//! `read_param`. Several names make aliases sharing one variant.
//!
//! [`Element::handlers`]: crate::Element::handlers
//! [`HandlerDef`]: crate::HandlerDef

/// Declares an element's handlers as an enum; see the [module
/// documentation](crate::handlers).
#[macro_export]
macro_rules! handlers {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $(
                $(#[$vmeta:meta])*
                $variant:ident = $ctor:ident ( $($hname:literal),+ $(,)? ) $(. $modifier:ident ())*
            ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        #[repr(u32)]
        #[allow(dead_code)]
        $vis enum $name {
            $( $(#[$vmeta])* $variant, )+
        }

        #[allow(dead_code)]
        impl $name {
            /// Every handler, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The id passed to `read_handler`/`write_handler`.
            pub const fn id(self) -> u32 {
                self as u32
            }

            /// The handler with id `id`, if there is one.
            pub fn from_id(id: u32) -> Option<$name> {
                Self::ALL.get(id as usize).copied()
            }

            /// This handler's definitions (one per name).
            pub fn defs(self) -> ::std::vec::Vec<$crate::HandlerDef> {
                match self {
                    $(
                        $name::$variant => {
                            let with_flags = |d: $crate::HandlerDef| d $(.$modifier())*;
                            ::std::vec![
                                $( with_flags($crate::HandlerDef::$ctor($hname, self.id())) ),+
                            ]
                        }
                    )+
                }
            }

            /// Every handler's definitions, in declaration order.
            pub fn all_defs() -> ::std::vec::Vec<$crate::HandlerDef> {
                Self::ALL.iter().flat_map(|h| h.defs()).collect()
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use crate::{HandlerDef, HandlerFlags, HandlerKind};

    crate::handlers! {
        enum H {
            Count = read("count"),
            Reset = write("reset", "reset_counts"),
            Call = read_write("call"),
            Param = read_param("lookup").expensive(),
            Raw = read("data").raw().expensive(),
        }
    }

    #[test]
    fn ids_round_trip_and_unknown_ids_are_none() {
        for (i, h) in H::ALL.iter().enumerate() {
            assert_eq!(h.id(), i as u32);
            assert_eq!(H::from_id(h.id()), Some(*h));
        }
        assert_eq!(H::from_id(H::ALL.len() as u32), None);
        assert_eq!(H::from_id(u32::MAX), None);
    }

    #[test]
    fn definitions_follow_the_table() {
        let defs = H::all_defs();
        let names: Vec<&str> = defs.iter().map(|d| d.name.as_ref()).collect();
        assert_eq!(
            names,
            ["count", "reset", "reset_counts", "call", "lookup", "data"]
        );
        assert_eq!(defs[0], HandlerDef::read("count", H::Count.id()));
        assert_eq!(defs[2].kind, HandlerKind::Element(H::Reset.id()));
        assert_eq!(defs[2].flags, HandlerFlags::WRITE);
        assert_eq!(defs[3].flags, HandlerFlags::READ_WRITE);
        assert!(defs[4].flags.read_param && defs[4].flags.expensive);
        assert!(defs[5].flags.raw && defs[5].flags.expensive && !defs[5].flags.write);
        assert_eq!(H::Reset.defs().len(), 2);
    }
}
