#pragma once
// The seam through which replicas agree: the ensemble's probability average and
// data-parallel's gradient average both go through allReduceMean. The local
// implementation averages replicas of one process; NCCL (several GPUs in one process) and
// c10d process groups (several processes or hosts) implement the same interface.
#include <ATen/core/Tensor.h>

#include <string>
#include <vector>

namespace ensemble {

class Communicator {
 public:
  virtual ~Communicator() = default;

  /// `perReplica` holds one tensor per replica driven by this process, each on its
  /// replica's device, all of the same shape and dtype. Afterwards every one of them holds
  /// the mean over all replicas of the group (this process's and any others').
  virtual void allReduceMean(std::vector<at::Tensor>& perReplica) = 0;

  /// Replicas in the whole group, across processes.
  virtual int worldReplicas() const = 0;

  /// A short name for logs and summaries ("local", "nccl", "gloo", ...).
  virtual std::string name() const = 0;
};

}  // namespace ensemble
