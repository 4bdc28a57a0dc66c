// SPDX-License-Identifier: GPL-3.0-or-later
// ensemble-lab-layer-timing: the stacked CNN's two convolution layers, ours against LibTorch's
// ops, forward + backward, timed alone on one device. Where bench/gpu_layers_ab.sh says what a
// training step gains, this says which pass of which layer the time goes to, in a few seconds
// of GPU time:
//   first layer   conv2d(images, M x 32 filters) + ReLU + 2x2 average pool: our fused kernels
//                 (ConvReluPool.h; the CPU's loops on the CPU) against conv2d, relu, avg_pool2d
//   second conv   the grouped 3x3 convolution, M groups of 32 -> 64 channels on 14 x 14: our
//                 kernels (GroupedConv.h, ENSEMBLELAB_STACKED_CONV=ours is set here: fp32, and
//                 TF32 / bf16 on tensor cores; CUDA builds on a GPU) against conv2d(groups M);
//                 on the CPU, one member: our Winograd loops (WinogradConv.h) against conv2d
//   second layer  on the CPU, one member: that convolution with ReLU and the 2x2 pool as its
//                 output stage, as the CNN runs it, against conv2d, relu, avg_pool2d (the note:
//                 ours as separate steps)
//   dense layer   on the CPU, one member's first dense layer, 3136 -> 256: our loops
//                 (ChunkedLinear.h) against torch::linear (the BLAS), with its backward or
//                 without (an evaluation's forward)
// for M members at a batch of B images per member, in fp32 (TF32 off), tf32 and bf16 (autocast)
// on a GPU, fp32 on the CPU. Each round times `reps` forward + backward passes of each side in
// turn, queued without waiting (so a GPU's time, not the host's launches, once the GPU is the
// slower), and the median over rounds is printed, as a table and a JSON line. Usage:
//   ensemble-lab-layer-timing [--device cpu|cuda:N] [--members 8,16] [--batch 128]
//                             [--precisions fp32,tf32,bf16] [--reps 10] [--rounds 5]
// Exits 2 on bad arguments.
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "core/common/AutocastState.h"
#include "core/common/Environment.h"
#include "core/devices/DeviceInventory.h"
#include "core/models/ChunkedLinear.h"
#include "core/models/ConvReluPool.h"
#include "core/models/GroupedConv.h"
#include "core/models/ReluAvgPool.h"
#include "core/models/WinogradConv.h"

namespace {

namespace F = torch::nn::functional;

struct Options {
  torch::Device device{torch::kCPU};
  std::vector<int64_t> members{8, 16};
  int64_t batch = 128;
  std::vector<std::string> precisions{"fp32", "tf32", "bf16"};
  int reps = 10, rounds = 5;
};

/// bf16 autocast on a GPU while it lives, for a pass's forward (as a training step opens it).
class AutocastSwitch {
 public:
  AutocastSwitch(const std::string& precision, const torch::Device& device) {
    ensemble::setAutocastDtype(true, torch::kBFloat16);
    ensemble::setAutocastEnabled(true, precision == "bf16" && device.is_cuda());
  }
  ~AutocastSwitch() { ensemble::setAutocastEnabled(true, false); }
  AutocastSwitch(const AutocastSwitch&) = delete;
  AutocastSwitch& operator=(const AutocastSwitch&) = delete;
};

/// cuDNN's and cuBLAS's TF32 for a precision's every pass, forward and backward, as a run's
/// Tf32Scope sets them (LibTorch's default leaves cuDNN's on, which would time fp32's backward
/// in TF32).
void setTf32For(const std::string& precision) {
  at::globalContext().setAllowTF32CuDNN(precision == "tf32");
  at::globalContext().setAllowTF32CuBLAS(precision == "tf32");
}

void finishQueuedWork(const torch::Device& device) {
  if (device.is_cuda()) ensemble::cudaFinishQueuedWork();
}

/// One layer's forward + backward on one side: returns the output (for its gradient's shape).
using Pass = std::function<torch::Tensor()>;

/// Median over rounds of the time per pass, in microseconds, of each side, the sides taking
/// turns within a round. The first pass of each side (algorithm choice, allocations) is untimed.
std::vector<double> medianMicroseconds(const std::vector<Pass>& sides, const Options& options) {
  for (const Pass& pass : sides) pass();
  finishQueuedWork(options.device);
  std::vector<std::vector<double>> times(sides.size());
  for (int round = 0; round < options.rounds; ++round) {
    for (std::size_t s = 0; s < sides.size(); ++s) {
      const auto start = std::chrono::steady_clock::now();
      for (int rep = 0; rep < options.reps; ++rep) sides[s]();
      finishQueuedWork(options.device);
      times[s].push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() /
                         options.reps);
    }
  }
  std::vector<double> medians;
  for (std::vector<double>& t : times) {
    std::sort(t.begin(), t.end());
    medians.push_back(t[t.size() / 2]);
  }
  return medians;
}

/// A forward + backward pass: `forward` on fresh leaves' gradients, then backward with `grad`.
Pass passOf(std::vector<torch::Tensor> leaves, std::function<torch::Tensor()> forward, const std::string& precision,
            const torch::Device& device) {
  return [leaves, forward, precision, device]() mutable {
    for (torch::Tensor& leaf : leaves) leaf.mutable_grad() = torch::Tensor();
    torch::Tensor out;
    {
      const AutocastSwitch autocast(precision, device);
      out = forward();
    }
    out.backward(torch::ones_like(out));
    return out;
  };
}

struct Row {
  std::string layer, precision, note;
  int64_t members = 0;
  double ours = 0, libtorch = 0, gigaflop = 0;  // microseconds; GFLOP of one forward + backward (0: not counted)
};

Row timeFirstLayer(int64_t members, const std::string& precision, const Options& o) {
  torch::manual_seed(1);
  const torch::Tensor images = torch::rand({o.batch, 1, 28, 28}).to(o.device);
  const torch::Tensor weight = (torch::randn({members * 32, 1, 3, 3}) * 0.5).to(o.device).requires_grad_(true);
  const torch::Tensor bias = (torch::randn({members * 32}) * 0.1).to(o.device).requires_grad_(true);
  Row row{"first layer", precision, "", members};
  const Pass ours = passOf({weight, bias}, [=] { return ensemble::convReluAvgPool2x2(images, weight, bias); },
                           precision, o.device);
  const Pass theirs = passOf(
      {weight, bias},
      [=] {
        const auto options = F::Conv2dFuncOptions().bias(bias).padding(1);
        return torch::avg_pool2d(torch::relu(F::conv2d(images, weight, options)), 2);
      },
      precision, o.device);
  const std::string node = ours().grad_fn()->name();
  if (node.find("ConvReluPool") == std::string::npos) {
    row.note = "ours did not run (" + node + ")";
    row.libtorch = medianMicroseconds({theirs}, o).front();
    return row;
  }
  const std::vector<double> t = medianMicroseconds({ours, theirs}, o);
  row.ours = t[0];
  row.libtorch = t[1];
  return row;
}

Row timeSecondConv(int64_t members, const std::string& precision, const Options& o) {
  torch::manual_seed(2);
  const torch::Tensor input = torch::randn({o.batch, members * 32, 14, 14}).to(o.device).requires_grad_(true);
  const torch::Tensor weight = (torch::randn({members * 64, 32, 3, 3}) * 0.1).to(o.device).requires_grad_(true);
  const torch::Tensor bias = torch::randn({members * 64}).to(o.device).requires_grad_(true);
  // Forward, input gradient and weight gradient: three products of pixels x 64 x 288 per member.
  Row row{"second conv", precision, "", members, 0, 0, 3 * 2.0 * double(o.batch * 196) * 64 * 288 * members / 1e9};
  const Pass theirs = passOf(
      {input, weight, bias},
      [=] { return F::conv2d(input, weight, F::Conv2dFuncOptions().bias(bias).padding(1).groups(members)); },
      precision, o.device);
  if (o.device.is_cpu() && members == 1) {
    // One member on the CPU: our Winograd loops (WinogradConv.h) on channels-last images, as
    // the CNN runs them, against LibTorch's conv2d (oneDNN) on the same layout.
    const torch::Tensor nhwc =
        input.detach().contiguous(torch::MemoryFormat::ChannelsLast).requires_grad_(true);
    if (ensemble::winogradConvolves(nhwc, weight)) {
      const Pass winograd = passOf(
          {nhwc, weight, bias}, [=] { return ensemble::conv3x3SamePadded(nhwc, weight, bias); }, precision, o.device);
      const Pass oneDnn = passOf(
          {nhwc, weight, bias}, [=] { return F::conv2d(nhwc, weight, F::Conv2dFuncOptions().bias(bias).padding(1)); },
          precision, o.device);
      const std::vector<double> t = medianMicroseconds({winograd, oneDnn}, o);
      row.ours = t[0];
      row.libtorch = t[1];
      row.note = "ours: Winograd F(2x2, 3x3); GFLOP/s as direct convolution";
      return row;
    }
  }
  bool runsOurs = false;
  {
    const AutocastSwitch autocast(precision, o.device);
    runsOurs = ensemble::groupedConvRunsOurKernels(precision == "bf16" ? input.to(torch::kBFloat16) : input, weight,
                                                   bias, members);
  }
  if (!runsOurs) {
    row.note = "ours not in this build or on this device";
    row.libtorch = medianMicroseconds({theirs}, o).front();
    return row;
  }
  const Pass ours = passOf(
      {input, weight, bias}, [=] { return ensemble::groupedConv3x3(input, weight, bias, members); }, precision,
      o.device);
  const std::vector<double> t = medianMicroseconds({ours, theirs}, o);
  row.ours = t[0];
  row.libtorch = t[1];
  return row;
}

/// The CNN's second layer on the CPU, one member, as it runs: the convolution with ReLU and the
/// 2x2 average pool as its output stage (conv3x3ReluAvgPool2x2) against LibTorch's conv2d, relu
/// and avg_pool2d on the same channels-last images; our two separate steps (conv3x3SamePadded,
/// reluAvgPool2x2) in the same rounds, in the note: what the fusion gains.
Row timeSecondLayerOnCpu(const Options& o) {
  torch::manual_seed(2);
  const torch::Tensor input = torch::randn({o.batch, 32, 14, 14})
                                  .contiguous(torch::MemoryFormat::ChannelsLast)
                                  .requires_grad_(true);
  const torch::Tensor weight = (torch::randn({64, 32, 3, 3}) * 0.1).requires_grad_(true);
  const torch::Tensor bias = torch::randn({64}).requires_grad_(true);
  Row row{"second layer", "fp32", "", 1, 0, 0, 3 * 2.0 * double(o.batch * 196) * 64 * 288 / 1e9};
  const std::vector<torch::Tensor> leaves{input, weight, bias};
  const Pass fused = passOf(leaves, [=] { return ensemble::conv3x3ReluAvgPool2x2(input, weight, bias); }, "fp32",
                            o.device);
  const Pass separate = passOf(
      leaves, [=] { return ensemble::reluAvgPool2x2(ensemble::conv3x3SamePadded(input, weight, bias)); }, "fp32",
      o.device);
  const Pass theirs = passOf(
      leaves,
      [=] {
        return torch::avg_pool2d(torch::relu(F::conv2d(input, weight, F::Conv2dFuncOptions().bias(bias).padding(1))), 2);
      },
      "fp32", o.device);
  const std::vector<double> t = medianMicroseconds({fused, separate, theirs}, o);
  row.ours = t[0];
  row.libtorch = t[2];
  std::ostringstream note;
  note << std::fixed << std::setprecision(0) << "conv + ReLU + pool; ours in separate steps " << t[1] << " us ("
       << std::setprecision(2) << t[1] / t[0] << "x the fused)";
  row.note = note.str();
  return row;
}

/// The CNN's first dense layer, 3136 -> 256, of one member: ours (ChunkedLinear.h: our loops
/// on the CPU) against torch::linear, forward + backward, or the forward
/// alone as an evaluation runs it.
Row timeDenseLayer(bool forwardOnly, const Options& o) {
  torch::manual_seed(3);
  constexpr int64_t in = 3136, out = 256;
  const torch::Tensor input = torch::randn({o.batch, in}).to(o.device);
  const torch::Tensor weight = (torch::randn({out, in}) * 0.02).to(o.device).requires_grad_(true);
  const torch::Tensor bias = torch::randn({out}).to(o.device).requires_grad_(true);
  const double productGflop = 2.0 * double(o.batch) * in * out / 1e9;
  Row row{forwardOnly ? "dense forward" : "dense layer", "fp32", "", 1, 0, 0, (forwardOnly ? 1 : 3) * productGflop};
  const auto pass = [&](bool ours) -> Pass {
    const auto forward = [=] {
      return ours ? ensemble::chunkedLinear(input, weight, bias) : torch::linear(input, weight, bias);
    };
    if (!forwardOnly) return passOf({weight, bias}, forward, "fp32", o.device);
    return [forward] {
      const torch::NoGradGuard noGradients;
      return forward();
    };
  };
  if (!ensemble::chunkedLinearSplits(input, weight)) {
    row.note = "ours is LibTorch's linear here (not the CPU)";
    row.libtorch = medianMicroseconds({pass(false)}, o).front();
    return row;
  }
  const std::vector<double> t = medianMicroseconds({pass(true), pass(false)}, o);
  row.ours = t[0];
  row.libtorch = t[1];
  return row;
}

std::vector<std::string> splitList(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream stream(text);
  for (std::string item; std::getline(stream, item, ',');) {
    if (!item.empty()) items.push_back(item);
  }
  return items;
}

Options parse(int argc, char** argv) {
  Options o;
  std::string device = torch::cuda::is_available() ? "cuda:0" : "cpu";
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) throw std::invalid_argument(flag + " needs a value");
    const std::string value = argv[++i];
    if (flag == "--device") {
      device = value;
    } else if (flag == "--members") {
      o.members.clear();
      for (const std::string& m : splitList(value)) o.members.push_back(std::stoll(m));
    } else if (flag == "--batch") {
      o.batch = std::stoll(value);
    } else if (flag == "--precisions") {
      o.precisions = splitList(value);
    } else if (flag == "--reps") {
      o.reps = std::stoi(value);
    } else if (flag == "--rounds") {
      o.rounds = std::stoi(value);
    } else {
      throw std::invalid_argument("unknown option " + flag);
    }
  }
  o.device = torch::Device(device);
  if (o.device.is_cuda() && !torch::cuda::is_available()) {
    throw std::invalid_argument("no GPU is visible for " + device);
  }
  for (const std::string& p : o.precisions) {
    if (p != "fp32" && p != "tf32" && p != "bf16") throw std::invalid_argument("unknown precision " + p);
  }
  if (o.members.empty() || o.batch < 1 || o.reps < 1 || o.rounds < 1 ||
      std::any_of(o.members.begin(), o.members.end(), [](int64_t m) { return m < 1; })) {
    throw std::invalid_argument("--members, --batch, --reps and --rounds must be positive");
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  try {
    options = parse(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "ensemble-lab-layer-timing: " << e.what()
              << "\nusage: ensemble-lab-layer-timing [--device cpu|cuda:N] [--members 8,16] [--batch 128] "
                 "[--precisions fp32,tf32,bf16] [--reps 10] [--rounds 5]\n";
    return 2;
  }
  // Ours, unless the caller asked for a form of them (ENSEMBLELAB_STACKED_CONV=ours-mma-sync:
  // gpu-check's step 1g); the JSON says which.
  try {
    ensemble::askForOurGroupedConvKernels();
  } catch (const std::exception& e) {
    std::cerr << "ensemble-lab-layer-timing: " << e.what() << "\n";
    return 2;
  }
  const std::string kernels = std::getenv(ensemble::environment::kStackedConv);
  std::vector<Row> rows;
  for (const int64_t members : options.members) {
    for (const std::string& precision : options.precisions) {
      // tf32 and bf16 are GPU precisions (on the CPU fp32 is what runs).
      if (options.device.is_cpu() && precision != "fp32") continue;
      setTf32For(precision);
      rows.push_back(timeFirstLayer(members, precision, options));
      rows.push_back(timeSecondConv(members, precision, options));
    }
  }
  if (options.device.is_cpu()) {
    setTf32For("fp32");
    rows.push_back(timeSecondLayerOnCpu(options));
    rows.push_back(timeDenseLayer(false, options));
    rows.push_back(timeDenseLayer(true, options));
  }
  std::cout << "| layer | members | precision | ours us | LibTorch us | LibTorch / ours | ours GFLOP/s | note |\n"
               "|---|---|---|---|---|---|---|---|\n";
  nlohmann::json json = nlohmann::json::array();
  for (const Row& r : rows) {
    std::ostringstream line;
    line << std::fixed << std::setprecision(1) << "| " << r.layer << " | " << r.members << " | " << r.precision << " | "
         << (r.ours > 0 ? std::to_string(int64_t(r.ours + 0.5)) : "-") << " | " << int64_t(r.libtorch + 0.5) << " | ";
    if (r.ours > 0) line << std::setprecision(2) << r.libtorch / r.ours;
    line << " | ";
    // GFLOP per us -> GFLOP/s
    if (r.ours > 0 && r.gigaflop > 0) line << std::setprecision(0) << r.gigaflop / r.ours * 1e6;
    line << " | " << r.note << " |";
    std::cout << line.str() << "\n";
    json.push_back({{"layer", r.layer}, {"members", r.members}, {"precision", r.precision}, {"ours_us", r.ours},
                    {"libtorch_us", r.libtorch}, {"gigaflop", r.gigaflop}, {"note", r.note}});
  }
  std::cout << nlohmann::json{{"device", options.device.str()},
                              {"batch", options.batch},
                              {"stacked_conv", kernels},
                              {"rows", json}}
                   .dump()
            << std::endl;
  return 0;
}
