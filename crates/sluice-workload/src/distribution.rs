//! Where a random-offset flow's next block falls: uniformly (the default)
//! or skewed as fio's `random_distribution` skews it (`zipf:THETA`,
//! `pareto:H`, `normal:DEV`, each with an optional `:CENTER`).
//!
//! The definitions are fio's (`lib/zipf.c`, `lib/gauss.c`), drawn from the
//! flow's own seeded generator so a run stays a function of its seed:
//! - **zipf**: block ranks 1..=n with P(k) = k^-θ / ζ(n, θ), drawn with Gray
//!   et al.'s approximation as fio draws them: rank 1 exactly when
//!   u·ζ(n) < 1, rank 2 when below 1 + 2^-θ, else
//!   1 + ⌊n (η u − η + 1)^α⌋ with α = 1/(1−θ) and
//!   η = (1 − (2/n)^(1−θ)) / (1 − ζ(2)/ζ(n)); ζ(n) sums at most 10^7 terms,
//!   as fio's does.
//! - **pareto**: rank ⌊(n−1) u^p⌋ with p = ln H / ln(1−H) (H = 0.2: 80% of
//!   the accesses to 20% of the blocks).
//! - **normal**: the rounded-up mean of 12 uniform draws in 0..=n, plus a
//!   uniform deviation within ±⌈n·DEV/100⌉/2 halved until it stays below
//!   n (fio's "normal" is this bell, not a true Gaussian).
//! - **zoned**: `zoned:A1/S1:A2/S2:...`, A percent of the accesses to the
//!   next S percent of the file, uniformly within it (zones laid out from
//!   the file's start; a missing A or S shares what the others leave of
//!   100; the accesses must add up to 100, the sizes to at most 100).
//!
//! As in fio, a rank is then scattered over the file by multiplying it by
//! the 64-bit golden ratio (hot blocks are not neighbours), and shifted by
//! a random offset (zipf, pareto) or by CENTER's share of the file, modulo
//! the file's blocks.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use rand::Rng;
use rand_pcg::Pcg64Mcg;

/// fio's zipf θ without a value (`FIO_DEF_ZIPF`).
pub const DEFAULT_ZIPF_THETA: f64 = 1.1;
/// fio's pareto H without a value (`FIO_DEF_PARETO`).
pub const DEFAULT_PARETO_H: f64 = 0.2;
/// Terms of ζ(n, θ) summed at most (fio's `ZIPF_MAX_GEN`).
pub const ZIPF_MAX_TERMS: u64 = 10_000_000;
/// The 64-bit golden ratio that scatters ranks over the file.
const GOLDEN_RATIO_64: u64 = 0x61C8_8646_80B5_83EB;

/// How a random-offset flow picks its blocks.
#[derive(Clone, Debug, PartialEq, Default)]
pub enum Distribution {
    /// Every block alike (fio's `random`).
    #[default]
    Uniform,
    /// Zipf with exponent θ (θ > 0, θ ≠ 1).
    Zipf {
        /// The exponent.
        theta: f64,
        /// Where rank 1 falls, as a share of the file (else at random).
        center: Option<f64>,
    },
    /// Pareto with power H (0 < H < 1).
    Pareto {
        /// The power.
        h: f64,
        /// Where rank 0 falls, as a share of the file (else at random).
        center: Option<f64>,
    },
    /// fio's normal: a bell of width DEV percent of the file (0 <= DEV < 100).
    Normal {
        /// The deviation, percent of the file.
        dev: f64,
        /// The bell's centre, as a share of the file (default 0.5).
        center: Option<f64>,
    },
    /// Zones from the file's start: (percent of the accesses, percent of
    /// the file), each zone read uniformly.
    Zoned(Vec<(f64, f64)>),
}

impl Distribution {
    /// fio's spelling: `random`, `zipf[:THETA[:CENTER]]`,
    /// `pareto[:H[:CENTER]]`, `normal[:DEV[:CENTER]]`. The error says why
    /// in a few words.
    pub fn parse(s: &str) -> Result<Self, String> {
        let mut parts = s.split(':');
        let kind = parts.next().unwrap_or("").trim();
        if kind == "zoned" {
            return Self::zoned(s.split_once(':').map_or("", |(_, z)| z));
        }
        let num = |p: Option<&str>, what: &str| -> Result<Option<f64>, String> {
            match p.map(str::trim) {
                None | Some("") => Ok(None),
                Some(v) => v
                    .parse::<f64>()
                    .ok()
                    .filter(|x| x.is_finite())
                    .map(Some)
                    .ok_or_else(|| format!("{what} '{v}' is not a number")),
            }
        };
        if !["random", "uniform", "zipf", "pareto", "normal"].contains(&kind) {
            return Err(format!(
                "'{kind}' is not random, zipf:THETA, pareto:H, normal:DEV or zoned:A/S:..."
            ));
        }
        let value = num(parts.next(), "the value")?;
        let center = num(parts.next(), "the center")?;
        if parts.next().is_some() {
            return Err("expected KIND[:VALUE[:CENTER]]".into());
        }
        if center.is_some_and(|c| !(0.0..=1.0).contains(&c)) {
            return Err("the center must be 0..=1".into());
        }
        Ok(match kind {
            "random" | "uniform" if value.is_none() => Distribution::Uniform,
            "random" | "uniform" => return Err("random takes no value".into()),
            "zipf" => {
                let theta = value.unwrap_or(DEFAULT_ZIPF_THETA);
                if theta <= 0.0 || theta == 1.0 || theta > 100.0 {
                    return Err("zipf's theta must be above 0, at most 100 and not 1".into());
                }
                Distribution::Zipf { theta, center }
            }
            "pareto" => {
                let h = value.unwrap_or(DEFAULT_PARETO_H);
                if !(h > 0.0 && h < 1.0) {
                    return Err("pareto's power must be between 0 and 1".into());
                }
                Distribution::Pareto { h, center }
            }
            "normal" => {
                let dev = value.unwrap_or(0.0);
                if !(0.0..100.0).contains(&dev) {
                    return Err("normal's deviation must be 0..100 (percent)".into());
                }
                Distribution::Normal { dev, center }
            }
            other => {
                return Err(format!(
                    "'{other}' is not random, zipf:THETA, pareto:H, normal:DEV or zoned:A/S:..."
                ))
            }
        })
    }

    /// `zoned:`'s zones, `A/S:A/S:...`, with fio's rules for missing
    /// values.
    fn zoned(spec: &str) -> Result<Self, String> {
        type Zone = (Option<f64>, Option<f64>);
        let mut zones: Vec<Zone> = Vec::new();
        for z in spec.split(':').filter(|z| !z.trim().is_empty()) {
            let (a, s) = z.split_once('/').unwrap_or((z, ""));
            let pct = |v: &str| -> Result<Option<f64>, String> {
                let v = v.trim().trim_end_matches('%');
                if v.is_empty() {
                    return Ok(None);
                }
                v.parse::<f64>()
                    .ok()
                    .filter(|x| (0.0..=100.0).contains(x))
                    .map(Some)
                    .ok_or_else(|| format!("zone '{z}': expected percent/percent"))
            };
            zones.push((pct(a)?, pct(s)?));
        }
        if zones.is_empty() || zones.len() > 256 {
            return Err("zoned needs 1 to 256 zones, as A/S:A/S...".into());
        }
        // Missing values share what the given ones leave of 100.
        let fill = |get: fn(&Zone) -> Option<f64>| {
            let given: f64 = zones.iter().filter_map(get).sum();
            let missing = zones.iter().filter(|z| get(z).is_none()).count();
            let share = if missing > 0 {
                (100.0 - given).max(0.0) / missing as f64
            } else {
                0.0
            };
            let all: Vec<f64> = zones.iter().map(|z| get(z).unwrap_or(share)).collect();
            (given, all)
        };
        let (access_given, access) = fill(|z| z.0);
        let (size_given, size) = fill(|z| z.1);
        if access_given > 100.0 + 1e-9 || size_given > 100.0 + 1e-9 {
            return Err("zoned percentages add up to more than 100".into());
        }
        let total: f64 = access.iter().sum();
        if (total - 100.0).abs() > 1e-6 {
            return Err(format!("zoned accesses add up to {total}, not 100"));
        }
        Ok(Distribution::Zoned(access.into_iter().zip(size).collect()))
    }

    /// The spelling [`Distribution::parse`] reads back.
    pub fn name(&self) -> String {
        let c = |c: &Option<f64>| c.map_or(String::new(), |c| format!(":{c}"));
        match self {
            Distribution::Uniform => "random".into(),
            Distribution::Zipf { theta, center } => format!("zipf:{theta}{}", c(center)),
            Distribution::Pareto { h, center } => format!("pareto:{h}{}", c(center)),
            Distribution::Normal { dev, center } => format!("normal:{dev}{}", c(center)),
            Distribution::Zoned(zones) => {
                let z: Vec<String> = zones.iter().map(|(a, s)| format!("{a}/{s}")).collect();
                format!("zoned:{}", z.join(":"))
            }
        }
    }
}

/// ζ(n, θ) over at most [`ZIPF_MAX_TERMS`] terms, remembered: every copy of
/// a flow has the same file.
fn zeta(n: u64, theta: f64) -> f64 {
    static SUMS: OnceLock<Mutex<HashMap<(u64, u64), f64>>> = OnceLock::new();
    let sums = SUMS.get_or_init(Default::default);
    let key = (n, theta.to_bits());
    if let Some(&z) = sums.lock().expect("zeta cache").get(&key) {
        return z;
    }
    let z = (1..=n.min(ZIPF_MAX_TERMS))
        .map(|i| (i as f64).powf(-theta))
        .sum();
    sums.lock().expect("zeta cache").insert(key, z);
    z
}

/// A [`Distribution`] over the blocks `0..n` of one file, its constants
/// worked out once.
#[derive(Clone, Debug)]
pub struct Sampler {
    dist: Distribution,
    n: u64,
    /// Added to every scattered rank (modulo n).
    offset: u64,
    zetan: f64,
    eta: f64,
    alpha: f64,
    pareto_pow: f64,
    /// normal: the deviation's full width, blocks.
    width: u64,
    /// zoned: (cumulative share of the accesses, first block, blocks).
    zones: Vec<(f64, u64, u64)>,
}

impl Sampler {
    /// `dist` over `n` blocks (at least one); a zipf or pareto without a
    /// center draws its offset from `rng`, as fio does.
    pub fn new(dist: Distribution, n: u64, rng: &mut Pcg64Mcg) -> Self {
        let n = n.max(1);
        let mut s = Sampler {
            dist,
            n,
            offset: 0,
            zetan: 1.0,
            eta: 0.0,
            alpha: 0.0,
            pareto_pow: 1.0,
            width: 0,
            zones: Vec::new(),
        };
        let at = |c: f64| ((n as f64 * c) as u64).min(n - 1);
        match s.dist.clone() {
            Distribution::Zoned(zones) => {
                let (mut cum, mut start_pct) = (0.0, 0.0);
                for (a, size) in zones {
                    cum += a / 100.0;
                    let first = ((start_pct / 100.0 * n as f64) as u64).min(n - 1);
                    start_pct += size;
                    let end =
                        ((start_pct.min(100.0) / 100.0 * n as f64) as u64).clamp(first + 1, n);
                    if a > 0.0 {
                        s.zones.push((cum, first, end - first));
                    }
                }
            }
            Distribution::Uniform => {}
            Distribution::Zipf { theta, center } => {
                s.offset = center.map_or_else(|| rng.gen_range(0..n), at);
                s.zetan = zeta(n, theta);
                let zeta2 = 1.0 + 0.5f64.powf(theta);
                s.alpha = 1.0 / (1.0 - theta);
                let denom = 1.0 - zeta2 / s.zetan;
                s.eta = if denom.abs() > 1e-12 {
                    (1.0 - (2.0 / n as f64).powf(1.0 - theta)) / denom
                } else {
                    0.0
                };
            }
            Distribution::Pareto { h, center } => {
                s.offset = center.map_or_else(|| rng.gen_range(0..n), at);
                s.pareto_pow = h.ln() / (1.0 - h).ln();
            }
            Distribution::Normal { dev, center } => {
                // fio shifts the bell by (center - 0.5) of the file.
                let shift = center.map_or(0.0, |c| c - 0.5) * n as f64;
                s.offset = (shift as i64).rem_euclid(n as i64) as u64;
                if dev > 0.0 {
                    s.width = ((n as f64 * dev / 100.0).ceil() as u64).min(n / 2);
                }
            }
        }
        s
    }

    /// The number of blocks.
    pub fn blocks(&self) -> u64 {
        self.n
    }

    /// The zipf rank (1-based) of a uniform draw `u` in [0, 1).
    fn zipf_rank(&self, theta: f64, u: f64) -> u64 {
        let z = u * self.zetan;
        if z < 1.0 {
            1
        } else if z < 1.0 + 0.5f64.powf(theta) {
            2
        } else {
            let x = (self.eta * u - self.eta + 1.0).max(0.0).powf(self.alpha);
            1 + ((self.n as f64 * x) as u64).min(self.n - 1)
        }
    }

    /// The next block, `0..n`.
    pub fn next(&self, rng: &mut Pcg64Mcg) -> u64 {
        let n = self.n;
        let rank = match self.dist {
            Distribution::Uniform => return rng.gen_range(0..n),
            Distribution::Zoned(_) => {
                let u: f64 = rng.gen();
                let Some(&(_, first, len)) =
                    self.zones.iter().find(|z| u < z.0).or(self.zones.last())
                else {
                    return rng.gen_range(0..n);
                };
                return first + rng.gen_range(0..len.max(1));
            }
            Distribution::Zipf { theta, .. } => self.zipf_rank(theta, rng.gen::<f64>()) - 1,
            Distribution::Pareto { .. } => {
                ((n - 1) as f64 * rng.gen::<f64>().powf(self.pareto_pow)) as u64
            }
            Distribution::Normal { .. } => {
                let sum: u64 = (0..12).map(|_| rng.gen_range(0..=n)).sum();
                let mut at = sum.div_ceil(12) as i64;
                if self.width > 0 {
                    let w = self.width as i64;
                    let mut dev = (rng.gen::<f64>() * w as f64) as i64 - w / 2;
                    while dev + at >= n as i64 {
                        dev /= 2;
                    }
                    at = (at + dev).max(0);
                }
                at as u64
            }
        };
        scatter(rank, self.offset, n)
    }
}

/// Where rank `rank` falls among `n` blocks shifted by `offset`: fio
/// multiplies by the golden ratio so hot ranks are not neighbours.
fn scatter(rank: u64, offset: u64, n: u64) -> u64 {
    rank.wrapping_mul(GOLDEN_RATIO_64).wrapping_add(offset) % n
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng;

    /// Draws per block of `dist` over `n` blocks, most drawn first.
    fn counts(dist: Distribution, n: u64, draws: u64) -> Vec<u64> {
        let mut r = rng::stream(3, 0);
        let s = Sampler::new(dist.clone(), n, &mut r);
        let mut c = vec![0u64; n as usize];
        for _ in 0..draws {
            c[s.next(&mut r) as usize] += 1;
        }
        c.sort_unstable_by(|a, b| b.cmp(a));
        c
    }

    #[test]
    fn zipf_hottest_blocks_get_fios_share() {
        // fio: rank 1 has 1/ζ(n), rank 2 has 2^-θ/ζ(n) of the accesses.
        let (n, theta, draws) = (1000u64, 1.2, 200_000u64);
        let zetan: f64 = (1..=n).map(|i| (i as f64).powf(-theta)).sum();
        let c = counts(
            Distribution::Zipf {
                theta,
                center: None,
            },
            n,
            draws,
        );
        let share = |k: usize| c[k] as f64 / draws as f64;
        assert!((share(0) - 1.0 / zetan).abs() < 0.01, "{}", share(0));
        assert!(
            (share(1) - 0.5f64.powf(theta) / zetan).abs() < 0.01,
            "{}",
            share(1)
        );
    }

    #[test]
    fn pareto_sends_most_accesses_to_few_blocks() {
        // fio: rank ⌊(n−1) u^p⌋, so rank r has ((r+1)/(n−1))^(1/p) −
        // (r/(n−1))^(1/p) of the draws (H = 0.2: ranks below 0.2 n take
        // 80%); scattered over the blocks as fio scatters them.
        let (n, h, draws) = (1000u64, 0.2f64, 100_000u64);
        let p = h.ln() / (1.0 - h).ln();
        let cdf = |r: u64| (r as f64 / (n - 1) as f64).min(1.0).powf(1.0 / p);
        let mut predicted = vec![0.0; n as usize];
        for r in 0..n {
            predicted[scatter(r, 0, n) as usize] += cdf(r + 1) - cdf(r);
        }
        predicted.sort_unstable_by(|a, b| b.total_cmp(a));
        let c = counts(Distribution::Pareto { h, center: None }, n, draws);
        for k in [1, 10, 100, 200] {
            let ours = c[..k].iter().sum::<u64>() as f64 / draws as f64;
            let fio: f64 = predicted[..k].iter().sum();
            assert!((ours - fio).abs() < 0.02, "top {k}: {ours} vs {fio}");
        }
        let ranks_below_a_fifth = cdf(200);
        assert!((ranks_below_a_fifth - 0.8).abs() < 0.01);
    }

    #[test]
    fn normal_gathers_accesses_in_a_bell() {
        // The mean of 12 uniforms has sd n/12: ~68% within n/6 of blocks.
        let c = counts(
            Distribution::Normal {
                dev: 0.0,
                center: None,
            },
            1200,
            100_000,
        );
        let top: u64 = c[..200].iter().sum();
        assert!(top as f64 / 100_000.0 > 0.6, "{top}");
    }

    #[test]
    fn zoned_sends_each_zones_share_to_its_part_of_the_file() {
        // fio's rand-zones.fio: 50% to the first 5%, 30% to the next 15%,
        // 20% to the remaining 80%.
        let d = Distribution::parse("zoned:50/5:30/15:20/").unwrap();
        assert_eq!(
            d,
            Distribution::Zoned(vec![(50.0, 5.0), (30.0, 15.0), (20.0, 80.0)])
        );
        let mut r = rng::stream(5, 0);
        let s = Sampler::new(d, 1000, &mut r);
        let mut zone = [0u32; 3];
        for _ in 0..100_000 {
            match s.next(&mut r) {
                b if b < 50 => zone[0] += 1,
                b if b < 200 => zone[1] += 1,
                _ => zone[2] += 1,
            }
        }
        for (got, want) in zone.iter().zip([0.5, 0.3, 0.2]) {
            assert!((f64::from(*got) / 1e5 - want).abs() < 0.01, "{zone:?}");
        }
        assert!(Distribution::parse("zoned:50/5:30/15").is_err());
        assert!(Distribution::parse("zoned:60/60:40/60").is_err());
    }

    #[test]
    fn uniform_spreads_evenly_and_skewed_draws_repeat_by_seed() {
        let c = counts(Distribution::Uniform, 1000, 100_000);
        assert!(c[0] < 200 && c[999] > 40, "{} {}", c[0], c[999]);
        let z = Distribution::parse("zipf:1.2").unwrap();
        let draw = || {
            let mut r = rng::stream(9, 1);
            let s = Sampler::new(z.clone(), 5000, &mut r);
            (0..50).map(|_| s.next(&mut r)).collect::<Vec<_>>()
        };
        assert_eq!(draw(), draw());
    }

    #[test]
    fn parse_reads_fios_spellings_and_refuses_the_rest() {
        assert_eq!(Distribution::parse("random"), Ok(Distribution::Uniform));
        assert_eq!(
            Distribution::parse("zipf:1.2:0.25"),
            Ok(Distribution::Zipf {
                theta: 1.2,
                center: Some(0.25)
            })
        );
        assert_eq!(
            Distribution::parse("pareto"),
            Ok(Distribution::Pareto {
                h: DEFAULT_PARETO_H,
                center: None
            })
        );
        for bad in [
            "zipf:1",
            "pareto:1.5",
            "normal:100",
            "zoned:60/10",
            "zipf:x",
            "zipf:1.2:2",
        ] {
            assert!(Distribution::parse(bad).is_err(), "{bad}");
        }
        for d in ["zipf:1.2:0.25", "pareto:0.3", "normal:5", "random"] {
            assert_eq!(Distribution::parse(d).unwrap().name(), d);
        }
    }
}
