#pragma once
// Which build options of `ctwin size` a buyer should look at: options whose throughput differs
// by less than the model can resolve are ties, and the Pareto front of capex against throughput
// is drawn over tie groups, so that it never prefers one option to another on noise.

#include <cstddef>
#include <vector>

namespace ctwin::api {

/// One option's standing: its throughput, and its capex when every part has a price. An option
/// that was not built or did not run the workload joins no group; one without a price joins its
/// tie group but not the front.
struct FrontPoint {
  bool ran = false;
  bool priced = false;
  double capex = 0;
  double tokens_per_s = 0;
  /// The lowest and highest throughput the option gave over ECMP hash seeds (tokens_per_s being
  /// their mean); both 0 when only one was run.
  double lowest = 0;
  double highest = 0;
};

struct FrontMark {
  int tie_group = -1;   ///< options with the same group deliver the same within the tolerance; -1 when it did not run
  bool pareto = false;  ///< no other option costs no more and delivers more beyond the tolerance, or the same for less
};

/// Tie groups: the options sorted by throughput, fastest first, a new group starting at the first
/// option more than `tolerance` (relative) below its group's fastest whose best hash draw is also
/// below that option's worst (an option some draw of which can beat some draw of the faster one is
/// not told apart from it); groups numbered from 0 in
/// that order, ties between equal throughputs broken by option index. An option is on the front
/// unless another costs no more and is faster beyond the tolerance, or is tied with it and costs
/// strictly less.
[[nodiscard]] std::vector<FrontMark> mark_front(const std::vector<FrontPoint>& points, double tolerance);

}  // namespace ctwin::api
