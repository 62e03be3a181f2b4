#pragma once
// Several jobs replayed together on one flow simulation of one build (docs/cluster.md, "Several
// jobs on one build").
//
// Every job is a scenario already placed on the build (its ranks on its own nodes). One engine
// and one flow model of the whole build carry all of them: each job has its own shared-fabric
// executor (its own collective plans, paces and placement, shared_fabric.hpp) over that one
// network model, so that traffic of different jobs crossing the same link shares it max-min
// fairly, as traffic of one job's overlapping ops already does.
//
// A job starts its first step at its offset; each next step starts when the one before has
// ended on every rank (the step's last optimizer op; a job's ranks meet at every step's end).
// Jobs keep stepping until every job has run its window, so that no job's reported steps run
// beside an already finished neighbour; the steps past a job's window are replayed but not
// reported. With one job and offset 0 the first step is exactly simulate_step's on that build.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ctwin/core/units.hpp"
#include "ctwin/fabric/fabric.hpp"
#include "ctwin/replay/background_traffic.hpp"
#include "ctwin/replay/replay.hpp"
#include "ctwin/replay/scenario.hpp"

namespace ctwin::replay {

struct ClusterJob {
  const Scenario* scenario = nullptr;  ///< resolved; its placement chooses nodes of the build
  SimTime start;                       ///< when its first step starts
  int steps = 1;                       ///< the window: steps reported
};

struct JobReplay {
  std::vector<ReplayResult> steps;  ///< the window's steps, each timed from its own start
  std::vector<SimTime> starts;      ///< when each started
  Placement placement;
  std::vector<double> link_bytes;  ///< bytes the job put on each link of the build over the window (count_links)
  Bytes fabric_bytes;              ///< bytes it put on the fabric over the window (paced, shared_fabric.hpp)
};

/// Streams that run beside the jobs from time 0 to the window's end (background_traffic.hpp).
struct ClusterBackground {
  std::vector<BackgroundStream> streams;
  SimTime chunk;  ///< a chunk's time at its stream's rate
};

struct ClusterReplayResult {
  std::vector<JobReplay> jobs;
  std::vector<BackgroundStreamResult> background;  ///< per stream, when there was background
  std::uint64_t events = 0;
};

/// Replays `jobs` together on `build` (their scenarios' cluster, built whole). `count_links`:
/// tally each job's bytes per link (routes every flow once more). `background`: streams beside
/// the jobs until every job's window has ended, if any.
[[nodiscard]] ClusterReplayResult replay_jobs(const std::vector<ClusterJob>& jobs,
                                              const std::shared_ptr<const fabric::Fabric>& build, bool count_links,
                                              const ClusterBackground* background = nullptr);

/// "leaf3.up1 (leaf -> spine)", "n5.nic2 (nic -> leaf)": a link of `build` by its cable's name
/// (the one --degrade link: takes, fabric/degradation.hpp) and its direction.
[[nodiscard]] std::string link_label(const fabric::Fabric& build, fabric::LinkId link);

}  // namespace ctwin::replay
