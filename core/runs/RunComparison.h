// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Several runs exported at once, for a spreadsheet or pandas (what TensorBoard users still
// ask for: every run's data in one download). Two CSV files:
//   the comparison table, one row per run:
//     run,status,mode,model,dataset,devices,replicas,seed,lr,momentum,batch_size,epochs,
//     epochs_completed,test_accuracy,test_nll,test_brier,test_ece,mean_member_accuracy,
//     disagreement,seconds_per_epoch,images_per_second
//   every curve in long format, one row per point:
//     run,model,step,epoch,metric,value
//   (model: member-0, member-1, ... or ensemble; metric: train_loss, train_accuracy,
//   test_loss, test_accuracy; a test point's step is the step its epoch ended at).
// A run whose summary says "running" but that no process is training (it was killed) is
// "interrupted", as the window calls it. Values a run does not have yet (no evaluation before its first epoch) are left empty.
// A run is named by its folder's name; runs whose folders share a name (job 001 of two
// sweeps) by as much of the path above as tells them apart. A run given twice is refused.
// Torch-free.
#include <string>
#include <vector>

namespace ensemble {

/// A run an export could not read, and why (with what to do, where something would help).
struct RunLeftOut {
  std::string run;
  std::string why;
};

/// The comparison table's text. Throws IoError or ConfigError naming an unreadable run file;
/// with `leftOut`, such a run is left out and said there instead (the others' rows kept:
/// one damaged run in a folder of thirty had cost the whole table), and the error goes up
/// only when no run can be read. A missing config.json or metrics.csv that the run's
/// checkpoint can write again says how (RestorableRunFile.h).
std::string runComparisonCsv(const std::vector<std::string>& runDirectories,
                             std::vector<RunLeftOut>* leftOut = nullptr);
/// The long-format curves' text: run,model,step,epoch,metric,value, one value per (run,
/// model, step, metric); an epoch's training means are train_loss_epoch_mean and
/// train_accuracy_epoch_mean (its last logging window, at the same step, is train_loss).
/// Throws IoError naming an unreadable metrics.csv; `leftOut` as for the table.
std::string runCurvesCsv(const std::vector<std::string>& runDirectories, std::vector<RunLeftOut>* leftOut = nullptr);

/// Each written atomically; throws as above, and IoError when `path` cannot be written.
void writeRunComparison(const std::vector<std::string>& runDirectories, const std::string& path,
                        std::vector<RunLeftOut>* leftOut = nullptr);
void writeRunCurves(const std::vector<std::string>& runDirectories, const std::string& path,
                    std::vector<RunLeftOut>* leftOut = nullptr);

}  // namespace ensemble
