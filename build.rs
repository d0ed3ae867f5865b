//! Builds the magic-bitboard tables for sliding attacks at compile time, and says which net
//! file the binary embeds.
//!
//! For every square and both slider kinds it finds a magic multiplier that maps each
//! relevant-blocker subset to a table slot without destructive collisions, then writes the
//! multipliers and the full attack table as Rust source into `OUT_DIR/magics.rs`. The search
//! uses a fixed-seed generator, so every build produces the same tables.

use std::fmt::Write as _;
use std::{env, fs, path::Path};

const ROOK_DIRS: [(i8, i8); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
const BISHOP_DIRS: [(i8, i8); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];

/// Attacks from `sq` along `dirs`, stopping at (and including) the first blocker.
fn slide(sq: u8, dirs: &[(i8, i8)], occupied: u64) -> u64 {
    let mut attacks = 0u64;
    for &(df, dr) in dirs {
        let (mut f, mut r) = ((sq % 8) as i8, (sq / 8) as i8);
        loop {
            f += df;
            r += dr;
            if !(0..8).contains(&f) || !(0..8).contains(&r) {
                break;
            }
            let bit = 1u64 << (r * 8 + f);
            attacks |= bit;
            if occupied & bit != 0 {
                break;
            }
        }
    }
    attacks
}

/// Squares whose occupancy matters: the rays without their last square on the board edge.
fn relevant_mask(sq: u8, dirs: &[(i8, i8)]) -> u64 {
    let mut mask = 0u64;
    for &(df, dr) in dirs {
        let (mut f, mut r) = ((sq % 8) as i8, (sq / 8) as i8);
        loop {
            f += df;
            r += dr;
            let (nf, nr) = (f + df, r + dr);
            if !(0..8).contains(&f) || !(0..8).contains(&r) {
                break;
            }
            if !(0..8).contains(&nf) || !(0..8).contains(&nr) {
                break;
            }
            mask |= 1u64 << (r * 8 + f);
        }
    }
    mask
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn sparse(&mut self) -> u64 {
        self.next() & self.next() & self.next()
    }
}

struct Found {
    mask: u64,
    magic: u64,
    shift: u32,
    offset: usize,
}

fn find_magics(dirs: &[(i8, i8)], rng: &mut Rng, table: &mut Vec<u64>) -> Vec<Found> {
    let mut found = Vec::with_capacity(64);
    for sq in 0..64u8 {
        let mask = relevant_mask(sq, dirs);
        let bits = mask.count_ones();
        let size = 1usize << bits;
        let mut subsets = Vec::with_capacity(size);
        let mut attacks = Vec::with_capacity(size);
        let mut sub = 0u64;
        loop {
            subsets.push(sub);
            attacks.push(slide(sq, dirs, sub));
            sub = sub.wrapping_sub(mask) & mask;
            if sub == 0 {
                break;
            }
        }
        let shift = 64 - bits;
        let mut slots = vec![0u64; size];
        let mut used = vec![0u32; size];
        let mut attempt = 0u32;
        let magic = loop {
            attempt += 1;
            let magic = rng.sparse();
            if (mask.wrapping_mul(magic) >> 56).count_ones() < 6 {
                continue;
            }
            let mut ok = true;
            for (&s, &a) in subsets.iter().zip(&attacks) {
                let idx = (s.wrapping_mul(magic) >> shift) as usize;
                if used[idx] != attempt {
                    used[idx] = attempt;
                    slots[idx] = a;
                } else if slots[idx] != a {
                    ok = false;
                    break;
                }
            }
            if ok {
                break magic;
            }
        };
        let offset = table.len();
        table.extend_from_slice(&slots);
        found.push(Found {
            mask,
            magic,
            shift,
            offset,
        });
    }
    found
}

/// The net the binary embeds: `KESTREL_EVALFILE` when set (OpenBench's `make EVALFILE=`),
/// else the committed one. Its path reaches the source as `KESTREL_NET`.
fn embedded_net() {
    println!("cargo:rerun-if-env-changed=KESTREL_EVALFILE");
    let path = match env::var("KESTREL_EVALFILE") {
        Ok(file) if !file.is_empty() => {
            fs::canonicalize(&file).unwrap_or_else(|e| panic!("KESTREL_EVALFILE={file}: {e}"))
        }
        _ => Path::new(&env::var("CARGO_MANIFEST_DIR").unwrap()).join(DEFAULT_NET),
    };
    println!("cargo:rerun-if-changed={}", path.display());
    println!("cargo:rustc-env=KESTREL_NET={}", path.display());
    let name = path
        .file_stem()
        .map_or("net".into(), |s| s.to_string_lossy());
    println!("cargo:rustc-env=KESTREL_NET_NAME={name}");
}

/// The committed net (see its manifest beside it).
const DEFAULT_NET: &str = "src/nnue/nets/kestrel-17.nnue";

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    embedded_net();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut table = Vec::new();
    let rooks = find_magics(&ROOK_DIRS, &mut rng, &mut table);
    let bishops = find_magics(&BISHOP_DIRS, &mut rng, &mut table);

    let mut out = String::with_capacity(table.len() * 22 + 16_384);
    out.push_str(
        "// Generated by build.rs: magic multipliers and the shared sliding-attack table.\n",
    );
    for (name, list) in [("ROOK_MAGICS", &rooks), ("BISHOP_MAGICS", &bishops)] {
        writeln!(out, "pub(crate) static {name}: [Magic; 64] = [").unwrap();
        for m in list.iter() {
            writeln!(
                out,
                "    Magic {{ mask: {:#018x}, magic: {:#018x}, shift: {}, offset: {} }},",
                m.mask, m.magic, m.shift, m.offset
            )
            .unwrap();
        }
        out.push_str("];\n");
    }
    writeln!(
        out,
        "pub(crate) static SLIDER_ATTACKS: [u64; {}] = [",
        table.len()
    )
    .unwrap();
    for chunk in table.chunks(8) {
        out.push_str("   ");
        for a in chunk {
            write!(out, " {a:#x},").unwrap();
        }
        out.push('\n');
    }
    out.push_str("];\n");
    let path = Path::new(&env::var("OUT_DIR").unwrap()).join("magics.rs");
    fs::write(path, out).unwrap();
}
