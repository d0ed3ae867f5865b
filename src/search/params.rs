//! The search's numbers in one table: every margin, depth limit and divisor the pruning,
//! reductions and extensions use, each with its range and the step an SPSA tuner perturbs it
//! by.
//!
//! In the shipped build each one is a constant the compiler folds into the search. Built with
//! the `tune` feature, each is a cell the engine's options set (UCI `setoption name NAME value
//! V`, shown by `uci` only in that build), so a tuner can play games with other values
//! without a rebuild; `kestrel params` prints the table in OpenBench's SPSA input format.

/// One tunable number of the search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Param {
    pub name: &'static str,
    pub default: i32,
    pub min: i32,
    pub max: i32,
    /// The perturbation at the end of an SPSA run (OpenBench's `c_end`).
    pub step: i32,
}

/// The learning rate at the end of an SPSA run (OpenBench's `r_end`), for every parameter.
pub const SPSA_R_END: f64 = 0.002;

macro_rules! search_params {
    ($($(#[doc = $doc:literal])* $name:ident = $value:literal, $min:literal..=$max:literal, step $step:literal;)*) => {
        /// Every tunable number of the search, in the table's order.
        pub const PARAMS: &[Param] = &[$(Param {
            name: stringify!($name),
            default: $value,
            min: $min,
            max: $max,
            step: $step,
        }),*];

        $(
            $(#[doc = $doc])*
            #[inline(always)]
            pub fn $name() -> i32 {
                #[cfg(feature = "tune")]
                {
                    cells::$name.load(std::sync::atomic::Ordering::Relaxed)
                }
                #[cfg(not(feature = "tune"))]
                {
                    $value
                }
            }
        )*

        /// The settable values of a tuning build.
        #[cfg(feature = "tune")]
        #[allow(non_upper_case_globals)]
        mod cells {
            use std::sync::atomic::AtomicI32;
            $(pub static $name: AtomicI32 = AtomicI32::new($value);)*

            pub fn cell(name: &str) -> Option<&'static AtomicI32> {
                match name {
                    $(stringify!($name) => Some(&$name),)*
                    _ => None,
                }
            }
        }
    };
}

search_params! {
    /// Reverse futility pruning: at most this depth...
    rfp_max_depth = 4, 2..=12, step 1;
    /// ...and this far above beta per ply of depth (a ply less when improving).
    rfp_margin = 68, 30..=160, step 8;
    /// Null-move pruning: from this depth on.
    nmp_min_depth = 4, 2..=6, step 1;
    /// The null move's reduction: this many plies...
    nmp_base = 5, 1..=6, step 1;
    /// ...plus the depth divided by this...
    nmp_depth_divisor = 3, 2..=8, step 1;
    /// ...plus a ply for each this many centipawns the evaluation stands above beta...
    nmp_eval_divisor = 222, 80..=400, step 20;
    /// ...at most this many.
    nmp_eval_max = 3, 1..=6, step 1;
    /// Internal iterative reduction: nodes without a hash move from this depth on.
    iir_min_depth = 3, 2..=8, step 1;
    /// Late-move pruning: at most this depth, after (lmp_base + depth²) / 2 quiet moves
    /// (twice that when improving).
    lmp_max_depth = 8, 4..=12, step 1;
    lmp_base = 4, 0..=8, step 1;
    /// Futility pruning of quiet moves: at most this reduced depth...
    futility_max_depth = 8, 4..=12, step 1;
    /// ...where the evaluation plus this...
    futility_base = 127, 30..=250, step 10;
    /// ...plus this per ply of reduced depth stays at or below alpha.
    futility_per_depth = 102, 30..=180, step 8;
    /// SEE pruning of quiet moves: losing more than this times the reduced depth squared.
    see_quiet_margin = 25, 5..=60, step 3;
    /// SEE pruning of captures: at most this depth, losing more than...
    see_noisy_max_depth = 9, 4..=12, step 1;
    /// ...this times the depth.
    see_noisy_margin = 83, 40..=200, step 8;
    /// Late-move reductions: base + ln(depth) × ln(move number) / divisor plies, both in
    /// hundredths.
    lmr_base = 88, 0..=150, step 8;
    lmr_divisor = 224, 120..=400, step 12;
    /// Reduced from this depth on.
    lmr_min_depth = 2, 2..=6, step 1;
    /// A ply less (more) reduction for each this much good (bad) history.
    lmr_history_divisor = 8107, 2048..=16384, step 512;
    /// Singular extensions: from this depth on...
    singular_min_depth = 6, 4..=12, step 1;
    /// ...with the hash entry at most this many plies shallower...
    singular_tt_depth_margin = 2, 1..=6, step 1;
    /// ...testing the other moves against the hash score less this per ply of depth.
    singular_beta_per_depth = 3, 1..=6, step 1;
    /// Double extension: the other moves fall this far below the singular bound...
    double_extension_margin = 18, 0..=60, step 4;
    /// ...at most this many times on one line.
    max_double_extensions = 6, 0..=12, step 1;
    /// Delta pruning in the quiescence search: a capture whose victim's value plus this
    /// leaves the stand-pat score at or below alpha is skipped.
    delta_pruning_margin = 217, 50..=400, step 15;
    /// The first aspiration window's half-width around the last iteration's score.
    aspiration_delta = 19, 5..=60, step 3;
    /// The history bonus for a move at depth d: history_bonus_per_depth × d −
    /// history_bonus_offset, at most history_bonus_max.
    history_bonus_per_depth = 166, 50..=300, step 12;
    history_bonus_offset = 98, 0..=300, step 15;
    history_bonus_max = 1380, 500..=3000, step 100;
}

/// Sets the parameter `name` (a tuning build only; elsewhere every name is refused). The
/// value must lie in the parameter's range.
pub fn set(name: &str, value: i32) -> Result<(), String> {
    let param = PARAMS
        .iter()
        .find(|p| p.name == name)
        .ok_or_else(|| format!("no search parameter {name}"))?;
    if !(param.min..=param.max).contains(&value) {
        return Err(format!("{name} must be {}-{}", param.min, param.max));
    }
    set_cell(param.name, value)
}

#[cfg(feature = "tune")]
fn set_cell(name: &str, value: i32) -> Result<(), String> {
    let cell = cells::cell(name).expect("every parameter has a cell");
    cell.store(value, std::sync::atomic::Ordering::Relaxed);
    Ok(())
}

#[cfg(not(feature = "tune"))]
fn set_cell(name: &str, _value: i32) -> Result<(), String> {
    Err(format!(
        "{name} is fixed in this build (build with --features tune to set it)"
    ))
}

/// The table in OpenBench's SPSA input format: `name, int, default, min, max, c_end, r_end`
/// a line.
pub fn spsa_input() -> String {
    PARAMS
        .iter()
        .map(|p| {
            format!(
                "{}, int, {}, {}, {}, {}, {}\n",
                p.name, p.default, p.min, p.max, p.step, SPSA_R_END
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_default_lies_in_its_range_and_names_are_unique() {
        let mut names = std::collections::HashSet::new();
        for p in PARAMS {
            assert!(p.min <= p.default && p.default <= p.max, "{p:?}");
            assert!(p.step > 0 && p.step <= p.max - p.min, "{p:?}");
            assert!(names.insert(p.name), "{} twice", p.name);
        }
    }

    #[test]
    fn the_accessors_give_the_table_defaults() {
        assert_eq!(rfp_margin(), PARAMS[1].default);
        assert_eq!(PARAMS[1].name, "rfp_margin");
        let last = PARAMS.last().unwrap();
        assert_eq!(last.name, "history_bonus_max");
        assert_eq!(history_bonus_max(), last.default);
    }

    #[test]
    fn spsa_input_has_a_line_per_parameter_in_openbench_form() {
        let text = spsa_input();
        assert_eq!(text.lines().count(), PARAMS.len());
        let p = PARAMS[1];
        let line = format!("rfp_margin, int, {}, 30, 160, 8, 0.002\n", p.default);
        assert!(text.contains(&line), "{text}");
    }

    #[test]
    fn out_of_range_and_unknown_names_are_refused() {
        assert!(set("rfp_margin", 10_000).is_err());
        assert!(set("no_such_thing", 1).is_err());
    }
}
