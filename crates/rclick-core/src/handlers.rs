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
//! `.expensive()`, `.raw()`, `.private()`, `.with_param()` and, for reconfiguring handlers,
//! `.positional(N)`. CTOR is one of:
//!
//! - `read`, `write`, `read_write`, `read_param`: [`HandlerDef`]'s
//!   constructors of the same names, served by `read_handler`/
//!   `write_handler` with the variant's id. Several names make aliases
//!   sharing one variant.
//! - `reconfigure("name", "KEYWORD")`: Click's reconfigure keyword
//!   handler ([`HandlerDef::reconfigure`]); a write sets `KEYWORD` in the
//!   configuration and reconfigures the element. It is write-only;
//!   `reconfigure_read` makes it readable through `read_handler` with the
//!   variant's id ([`HandlerDef::with_read`]), `reconfigure_config`
//!   readable as the argument's text in the current configuration.
//!   `.positional(N)` lets the argument be given at position `N` too
//!   ([`HandlerDef::reconfigure_positional`]).
//! - `family_read("prefix")`, `family_write`, `family_read_write`: a
//!   family of handlers made at run time, one per port or entry:
//!   `H::X.family_defs(n)` gives `prefix0` .. `prefix{n-1}`. Each member
//!   has its own id ([`family_id`](#family)); `H::decode(id)` gives back
//!   `(variant, index)`. A family is not in `all_defs` (its size is only
//!   known once configured) and `defs` gives nothing for it.
//!
//! ```
//! rclick_core::handlers! {
//!     enum H {
//!         Tickets = family_read_write("tickets"),
//!         Rate = reconfigure_read("rate", "RATE").positional(0),
//!         Seed = reconfigure_config("seed", "SEED"),
//!         Drops = read("drops"),
//!     }
//! }
//! let mut defs = H::all_defs();
//! defs.extend(H::Tickets.family_defs(2));
//! let names: Vec<_> = defs.iter().map(|d| d.name.as_ref()).collect();
//! assert_eq!(names, ["rate", "seed", "drops", "tickets0", "tickets1"]);
//! assert_eq!(H::decode(H::Tickets.family_id(1)), Some((H::Tickets, 1)));
//! assert_eq!(H::decode(H::Drops.id()), Some((H::Drops, 0)));
//! ```
//!
//! Ids: a plain variant's id is its position in the table; member `i` of a
//! family has id `position + i * H::ALL.len()`, so member 0 has the
//! variant's own id, and an id decodes as (`id % len`, `id / len`).
//!
//! [`Element::handlers`]: crate::Element::handlers
//! [`HandlerDef`]: crate::HandlerDef
//! [`HandlerDef::reconfigure`]: crate::HandlerDef::reconfigure
//! [`HandlerDef::with_read`]: crate::HandlerDef::with_read
//! [`HandlerDef::reconfigure_positional`]: crate::HandlerDef::reconfigure_positional

/// Declares an element's handlers as an enum; see the [module
/// documentation](crate::handlers).
#[macro_export]
macro_rules! handlers {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $(
                $(#[$vmeta:meta])*
                $variant:ident = $ctor:ident ( $($arg:expr),+ $(,)? )
                    $(. $modifier:ident ( $($marg:expr),* ))*
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

            /// Whether each handler (in declaration order) is a family.
            const FAMILIES: &'static [bool] = &[$($crate::handlers::ctor::$ctor::FAMILY),+];

            /// The id passed to `read_handler`/`write_handler`.
            pub const fn id(self) -> u32 {
                self as u32
            }

            /// The handler with id `id`, if there is one (a family's
            /// member 0 included; see [`decode`](Self::decode)).
            pub fn from_id(id: u32) -> Option<$name> {
                Self::ALL.get(id as usize).copied()
            }

            /// Whether this handler is a family made by
            /// [`family_defs`](Self::family_defs).
            pub fn is_family(self) -> bool {
                Self::FAMILIES[self as usize]
            }

            /// The id of member `index` of this family.
            ///
            /// # Panics
            ///
            /// If the id does not fit in a `u32`.
            pub fn family_id(self, index: u32) -> u32 {
                index
                    .checked_mul(Self::ALL.len() as u32)
                    .and_then(|i| i.checked_add(self.id()))
                    .expect("handler family index too large")
            }

            /// The handler and family index an id stands for: `(h, 0)` for
            /// a plain handler's id, `(family, i)` for a family member's;
            /// `None` for an id no handler has.
            pub fn decode(id: u32) -> Option<($name, u32)> {
                let len = Self::ALL.len() as u32;
                let h = Self::ALL[(id % len) as usize];
                let index = id / len;
                (index == 0 || h.is_family()).then_some((h, index))
            }

            /// This handler's definitions (one per name); nothing for a
            /// family.
            pub fn defs(self) -> ::std::vec::Vec<$crate::HandlerDef> {
                match self {
                    $(
                        $name::$variant => {
                            let with_flags =
                                |d: $crate::HandlerDef| d $(.$modifier($($marg),*))*;
                            $crate::handlers::ctor::$ctor::defs([$($arg),+], self.id())
                                .into_iter()
                                .map(with_flags)
                                .collect()
                        }
                    )+
                }
            }

            /// A family's definitions for members `0..n`; nothing for a
            /// plain handler.
            pub fn family_defs(self, n: usize) -> ::std::vec::Vec<$crate::HandlerDef> {
                match self {
                    $(
                        $name::$variant => {
                            let with_flags =
                                |d: $crate::HandlerDef| d $(.$modifier($($marg),*))*;
                            (0..n as u32)
                                .filter_map(|i| {
                                    $crate::handlers::ctor::$ctor::member(
                                        [$($arg),+],
                                        i,
                                        self.family_id(i),
                                    )
                                })
                                .map(with_flags)
                                .collect()
                        }
                    )+
                }
            }

            /// Every plain handler's definitions, in declaration order
            /// (families are added with [`family_defs`](Self::family_defs)).
            pub fn all_defs() -> ::std::vec::Vec<$crate::HandlerDef> {
                Self::ALL.iter().flat_map(|h| h.defs()).collect()
            }
        }
    };
}

/// The table's constructors, one module each, used by [`handlers!`]:
/// `FAMILY`, `defs(args, id)` for a plain handler and `member(args, index,
/// id)` for a family's member `index`. The argument count is checked at
/// compile time by the array length.
#[doc(hidden)]
pub mod ctor {
    macro_rules! plain {
        ($($ctor:ident),*) => {$(
            /// A plain constructor of the same name on `HandlerDef`.
            pub mod $ctor {
                use crate::HandlerDef;
                /// Not a family.
                pub const FAMILY: bool = false;
                /// One definition per name.
                pub fn defs<const N: usize>(names: [&'static str; N], id: u32) -> Vec<HandlerDef> {
                    names.into_iter().map(|n| HandlerDef::$ctor(n, id)).collect()
                }
                /// None: not a family.
                pub fn member<const N: usize>(_: [&'static str; N], _: u32, _: u32) -> Option<HandlerDef> {
                    None
                }
            }
        )*};
    }
    plain!(read, write, read_write, read_param);

    macro_rules! reconfigure {
        ($($ctor:ident => $make:expr),*) => {$(
            /// A reconfiguring handler: `(name, keyword)`.
            pub mod $ctor {
                use crate::HandlerDef;
                /// Not a family.
                pub const FAMILY: bool = false;
                /// The definition.
                pub fn defs([name, keyword]: [&'static str; 2], id: u32) -> Vec<HandlerDef> {
                    let make: fn(&'static str, &'static str, u32) -> HandlerDef = $make;
                    vec![make(name, keyword, id)]
                }
                /// None: not a family.
                pub fn member(_: [&'static str; 2], _: u32, _: u32) -> Option<HandlerDef> {
                    None
                }
            }
        )*};
    }
    reconfigure!(
        reconfigure => |n, k, _| HandlerDef::reconfigure(n, k),
        reconfigure_read => |n, k, id| HandlerDef::reconfigure(n, k).with_read(id),
        reconfigure_config => |n, k, _| {
            let mut d = HandlerDef::reconfigure(n, k);
            d.flags.read = true;
            d
        }
    );

    macro_rules! family {
        ($($ctor:ident => $flags:ident),*) => {$(
            /// A family of handlers `prefix0`, `prefix1`, ...
            pub mod $ctor {
                use crate::{HandlerDef, HandlerFlags, HandlerKind};
                /// A family.
                pub const FAMILY: bool = true;
                /// Nothing: members are made by `member`.
                pub fn defs(_: [&'static str; 1], _: u32) -> Vec<HandlerDef> {
                    Vec::new()
                }
                /// Member `index`, named `prefix{index}`, with id `id`.
                pub fn member([prefix]: [&'static str; 1], index: u32, id: u32) -> Option<HandlerDef> {
                    Some(HandlerDef {
                        name: format!("{prefix}{index}").into(),
                        flags: HandlerFlags::$flags,
                        kind: HandlerKind::Element(id),
                    })
                }
            }
        )*};
    }
    family!(family_read => READ, family_write => WRITE, family_read_write => READ_WRITE);
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

    crate::handlers! {
        enum F {
            Drops = read("drops"),
            Tickets = family_read_write("tickets"),
            Active = family_write("active").expensive(),
            Tci = reconfigure_read("vlan_tci", "VLAN_TCI").positional(3),
            Id = reconfigure("vlan_id", "VLAN_ID"),
            Seed = reconfigure_config("seed", "SEED").positional(0),
        }
    }

    #[test]
    fn families_are_made_at_run_time_and_decode() {
        assert!(F::Tickets.defs().is_empty());
        assert!(F::Drops.family_defs(3).is_empty());
        assert!(F::Tickets.is_family() && !F::Drops.is_family());
        let t = F::Tickets.family_defs(3);
        let names: Vec<&str> = t.iter().map(|d| d.name.as_ref()).collect();
        assert_eq!(names, ["tickets0", "tickets1", "tickets2"]);
        for (i, d) in t.iter().enumerate() {
            assert_eq!(d.flags, HandlerFlags::READ_WRITE);
            let HandlerKind::Element(id) = d.kind else {
                panic!("not an element handler")
            };
            assert_eq!(id, F::Tickets.family_id(i as u32));
            assert_eq!(F::decode(id), Some((F::Tickets, i as u32)));
        }
        let a = F::Active.family_defs(2);
        assert!(a[1].flags.write && !a[1].flags.read && a[1].flags.expensive);
        assert_eq!(F::decode(F::Active.family_id(7)), Some((F::Active, 7)));
        // Member 0 shares the variant's id; plain ids decode with index 0.
        assert_eq!(F::Tickets.family_id(0), F::Tickets.id());
        assert_eq!(F::from_id(F::Tickets.id()), Some(F::Tickets));
        assert_eq!(F::decode(F::Drops.id()), Some((F::Drops, 0)));
        // A plain handler has no members: ids past the table that land on
        // one are unknown.
        let len = F::ALL.len() as u32;
        assert_eq!(F::decode(F::Drops.id() + len), None);
        assert_eq!(F::from_id(F::Tickets.family_id(1)), None);
        // Families stay out of all_defs.
        let names: Vec<String> = F::all_defs().into_iter().map(|d| d.name.into()).collect();
        assert_eq!(names, ["drops", "vlan_tci", "vlan_id", "seed"]);
    }

    #[test]
    fn reconfigure_handlers_match_the_constructors() {
        assert_eq!(
            F::Tci.defs(),
            [
                HandlerDef::reconfigure_positional("vlan_tci", "VLAN_TCI", 3)
                    .with_read(F::Tci.id())
            ]
        );
        assert_eq!(
            F::Id.defs(),
            [HandlerDef::reconfigure("vlan_id", "VLAN_ID")]
        );
        let mut seed = HandlerDef::reconfigure_positional("seed", "SEED", 0);
        seed.flags.read = true;
        assert_eq!(F::Seed.defs(), [seed]);
        // `positional` leaves element handlers alone.
        assert_eq!(
            HandlerDef::read("x", 1).positional(2),
            HandlerDef::read("x", 1)
        );
    }
}
