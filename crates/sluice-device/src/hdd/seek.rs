//! Seek time as a function of cylinder distance.

use sluice::Duration;

/// A seek curve: either measured points (DiskSim's extracted `.seek` files)
/// interpolated linearly, or Lee's three-parameter formula fitted to the
/// three figures a datasheet gives.
#[derive(Clone, Debug, PartialEq)]
pub enum SeekCurve {
    /// `(distance in cylinders, ms)` points in ascending distance.
    Table(Vec<(u32, f64)>),
    /// `t(d) = c + a*sqrt(d-1) + b*(d-1)` ms for `d >= 1`.
    Lee {
        /// Coefficient of `sqrt(d-1)`, ms.
        a: f64,
        /// Coefficient of `d-1`, ms per cylinder.
        b: f64,
        /// The single-cylinder seek time, ms.
        c: f64,
    },
}

impl SeekCurve {
    /// Fit Lee's formula through a datasheet's track-to-track, average and
    /// full-stroke times (ms), as DiskSim's three-point seek model does. The
    /// datasheet average is the mean over seeks between two uniformly random
    /// cylinders, i.e. the mean of t(D) with density 2(N-d)/N^2, not t(N/3):
    /// `E[sqrt(D)] = (8/15) sqrt(N)` and `E[D] = N/3` give the coefficients below.
    pub fn lee_from_datasheet(
        track_to_track: f64,
        average: f64,
        full: f64,
        cylinders: u32,
    ) -> Self {
        let n = f64::from(cylinders.max(2));
        let c = track_to_track;
        let a = (-10.0 * c + 15.0 * average - 5.0 * full) / (3.0 * n.sqrt());
        let b = (7.0 * c - 15.0 * average + 8.0 * full) / (3.0 * n);
        SeekCurve::Lee { a, b, c }
    }

    /// Seek time in ms for a distance in cylinders (0 for no move).
    pub fn ms(&self, distance: u32) -> f64 {
        if distance == 0 {
            return 0.0;
        }
        match self {
            SeekCurve::Lee { a, b, c } => {
                let x = f64::from(distance - 1);
                c + a * x.sqrt() + b * x
            }
            SeekCurve::Table(points) => {
                let i = points.partition_point(|&(d, _)| d < distance);
                if i == 0 {
                    // Below the first point: scale down from it.
                    let (d0, t0) = points[0];
                    return t0 * f64::from(distance) / f64::from(d0.max(1));
                }
                if i == points.len() {
                    // Past the last measured distance: extend the last
                    // segment's slope, as DiskSim does.
                    if i < 2 {
                        return points[i - 1].1;
                    }
                    let (d0, t0) = points[i - 2];
                    let (d1, t1) = points[i - 1];
                    let slope = (t1 - t0) / f64::from((d1 - d0).max(1));
                    return t1 + slope.max(0.0) * f64::from(distance - d1);
                }
                let (d0, t0) = points[i - 1];
                let (d1, t1) = points[i];
                if d1 == distance {
                    return t1;
                }
                t0 + (t1 - t0) * f64::from(distance - d0) / f64::from(d1 - d0)
            }
        }
    }

    /// Seek time, rounded to the nanosecond.
    pub fn time(&self, distance: u32) -> Duration {
        Duration::from_millis_f64(self.ms(distance))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lee_fit_matches_minimum_mean_and_full_stroke() {
        let cyl = 100_000u32;
        let s = SeekCurve::lee_from_datasheet(0.8, 8.5, 16.0, cyl);
        assert!((s.ms(1) - 0.8).abs() < 1e-9);
        assert!((s.ms(cyl) - 16.0).abs() < 0.01, "{}", s.ms(cyl));
        assert_eq!(s.ms(0), 0.0);
        // The mean over uniformly random pairs of cylinders is the average.
        let n = f64::from(cyl);
        let mean: f64 = (1..cyl)
            .map(|d| s.ms(d) * 2.0 * (n - f64::from(d)) / (n * n))
            .sum();
        assert!((mean - 8.5).abs() < 0.02, "{mean}");
    }

    #[test]
    fn lee_curve_is_monotone() {
        let s = SeekCurve::lee_from_datasheet(0.8, 8.5, 16.0, 100_000);
        let mut prev = 0.0;
        for d in (0..100_000).step_by(97) {
            let t = s.ms(d);
            assert!(t >= prev, "d={d}: {t} < {prev}");
            prev = t;
        }
    }

    #[test]
    fn table_interpolates_between_points_and_extrapolates_beyond() {
        let s = SeekCurve::Table(vec![(1, 1.0), (10, 2.0), (110, 12.0)]);
        assert_eq!(s.ms(1), 1.0);
        assert_eq!(s.ms(10), 2.0);
        assert!((s.ms(60) - 7.0).abs() < 1e-12);
        assert!((s.ms(120) - 13.0).abs() < 1e-12);
        assert_eq!(s.time(60), Duration::from_millis(7));
    }
}
