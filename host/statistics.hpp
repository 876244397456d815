// Ensemble statistics where the data are (host/statistics/): per sample time, over the healthy bodies,
// count, mean, standard deviation, min, max, quantiles and fixed-bin histograms of observables of
// one body's channels — bitwise reproducible for any thread count, chunking, shard count and merge
// order (exact sums, exact order statistics).
//
//   statistics/exact_sum.hpp            superaccumulator; correctly rounded mean and variance
//   statistics/accumulator.hpp          one observable at one sample time: Accumulator, Summary, Bins
//   statistics/observable.hpp           ChannelLayout (channels by name), Observable, the standard set
//   statistics/ensemble_statistics.hpp  observables × sample times, fed by the run loop, mergeable
//
// ---------------------------------------------------------------- HDF5 layout (to be written)
// Beside (or instead of) the full trajectories of hdf5_output.hpp, nt = samples, nq = quantile
// levels, nb = bins of an observable:
//   /time                                (nt, float64)  as for the trajectories
//   /statistics                          group; attributes:
//       levels        (nq, float64)      the quantile levels (StatisticsSpec::quantile_levels)
//       bodies        (int64)            the ensemble size N
//   /statistics/<observable>/            one group per observable, named Observable::name(); attribute
//       definition    (string)           Observable::definition(), e.g. "relative_drift(energy)"
//     count           (nt, int64)        healthy bodies with a finite value (Summary::count)
//     nonfinite       (nt, int64)        healthy bodies whose value is NaN or ±inf (left out)
//     mean, std       (nt, float64)      std: unbiased (divisor count − 1); NaN below 1 / 2 values
//     min, max        (nt, float64)      NaN without values
//     quantiles       (nt × nq, float64) attribute levels (nq): the same levels; absent when nq = 0
//     histogram       (nt × nb, int64)   attribute edges (nb + 1, float64); only with Bins
//     below, above    (nt, int64)        finite values outside the edges; only with Bins
// Row j of every dataset is summarize(j) of EnsembleStatistics (Summary's fields of the same names).
// python/quatstep/plot.py reads this layout.
#pragma once

#include "statistics/accumulator.hpp"
#include "statistics/ensemble_statistics.hpp"
#include "statistics/exact_sum.hpp"
#include "statistics/observable.hpp"
