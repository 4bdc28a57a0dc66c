// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The meeting point of a multi-process run, on torch's TCPStore (served by rank 0):
// every process claims its rank, says who it is (world size, replicas, the run's config),
// and waits for the others, so a missing, duplicated or mismatched process is named
// before any training starts. Afterwards each process keeps a heartbeat in the store, so
// that when a collective fails the survivors can say which rank is gone, and a pulse port
// (PulsePort.h), so that a waiting collective can tell that a peer's process has ended.
#include <torch/csrc/distributed/c10d/Store.hpp>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/comm/Heartbeat.h"
#include "core/comm/ProcessGroupOptions.h"
#include "core/comm/PulsePort.h"
#include "core/comm/SilentStoreWatch.h"

namespace ensemble {

/// Empty, or the sentence refusing two ranks whose hellos name the same GPU ("gpu": its
/// PCI bus id, on the same "host"): NCCL needs a GPU of its own for each rank.
std::string sameGpuConflict(int rankA, const nlohmann::json& helloA, int rankB, const nlohmann::json& helloB);

class Rendezvous final {
 public:
  /// Connects (rank 0 serves the store), claims the rank and waits up to the timeout for
  /// every rank's hello. `hello` must hold "replicas" (int) and "config" (object); every
  /// rank must send the same. Throws DistributedError naming the missing or mismatched
  /// rank, or the port that is in use.
  Rendezvous(const ProcessGroupOptions& options, const nlohmann::json& hello);
  Rendezvous(const Rendezvous&) = delete;
  Rendezvous& operator=(const Rendezvous&) = delete;

  const c10::intrusive_ptr<c10d::Store>& store() const { return m_store; }

  /// Rank 0's hello as it sent it (with "host"): on rank 0, its own.
  const nlohmann::json& leaderHello() const { return m_leaderHello; }

  /// After a collective failed with `error`: a sentence naming the rank that announced a
  /// failure, stopped beating, or (when the store itself is gone) rank 0. Bounded in time
  /// (a few seconds). The sentence is left in the store for the other survivors.
  std::string diagnose(const std::string& error);

  /// While a collective waits: empty, or a sentence naming a peer whose process is gone (its
  /// pulse port refused a knock; PulsePort.h). Touches no store, so it cannot hang on a cut
  /// link; bounded by a fraction of a second per peer.
  std::string gonePeer() const;

  /// Leaves `message` in the store for the other ranks (best effort).
  void announceFailure(const std::string& message);

  /// Normal end: counts this rank done; rank 0 waits (bounded) until every rank is, so
  /// the store outlives their last use of it.
  void finish();

 private:
  /// Opens this rank's pulse port and names it in `hello`; sizes m_pulses.
  void openPulse(nlohmann::json& hello);
  void waitForPeers(const nlohmann::json& hello);
  void checkPeer(int rank, const nlohmann::json& mine, const nlohmann::json& theirs);
  /// Rank 0 opens the run with a nonce; every rank answers it (core/comm/RunToken.h).
  /// Returns this rank's proof, empty when it has no token.
  std::string proveToken();
  /// Rank 0 admits the group once every rank is checked; the others wait for that (or
  /// for the reason they were refused).
  void awaitAdmission();
  /// Refuses (abortRun) a rank whose proof does not show this run's token.
  void checkToken(int rank, const nlohmann::json& theirs);
  /// Waits for rank 0 to set `name`; throws rank 0's abort message if it aborts the run
  /// meanwhile, and `late` when --timeout passes first.
  void awaitKey(const std::string& name, const std::string& late);
  [[noreturn]] void abortRun(const std::string& message);
  std::string where() const;
  /// diagnose()'s search; sets `survivors` to the ranks believed alive.
  std::string findLostRank(const std::string& error, int& survivors);

  /// Why the rendezvous ended where the store stopped answering (SilentStoreWatch).
  std::string silentStoreMessage() const;
  /// The store answered: tells the watch, while there is one.
  void heardTheStore();

  ProcessGroupOptions m_options;
  std::unique_ptr<SilentStoreWatch> m_silenceWatch;  ///< only while the constructor runs
  c10::intrusive_ptr<c10d::Store> m_store;
  c10::intrusive_ptr<c10d::Store> m_heartbeatStore;  ///< own connection: never blocked by a collective
  std::unique_ptr<Heartbeat> m_heartbeat;
  std::unique_ptr<PulsePort> m_pulse;  ///< null where no socket could listen: then nobody knocks
  struct Endpoint {
    std::string address;
    int port = 0;  ///< 0: that rank has no pulse port
  };
  std::vector<Endpoint> m_pulses;  ///< per rank, from the hellos
  std::string m_token;  ///< this run's token, empty when this rank was given none
  /// Where rank 0 kept the token it made for this host's ranks; removed when the
  /// rendezvous ends (they have all joined with it, or it failed). Empty otherwise.
  std::string m_keptTokenFile;
  std::string m_nonce;
  nlohmann::json m_leaderHello;
  bool m_storeLost = false;  ///< a diagnosis found rank 0's store unreachable
};

}  // namespace ensemble
