// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/comm/Rendezvous.h"

#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <torch/version.h>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <optional>
#include <sstream>
#include <thread>
#include <vector>

#include "core/comm/AddressLookup.h"
#include "core/comm/BrokenPipes.h"
#include "core/comm/ListeningSocket.h"
#include "core/comm/RouteToHost.h"
#include "core/comm/RunToken.h"
#include "core/common/Environment.h"
#include "core/common/Error.h"
#include "core/common/ErrorMessage.h"

namespace ensemble {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr auto kHeartbeatPeriod = 250ms;
/// A rank whose heartbeat did not move over this long is gone (several periods, so a
/// busy machine does not make a live rank look dead).
constexpr auto kSilenceLimit = 2s;
/// How long a knock on a peer's pulse port may wait for an answer (PulsePort.h).
constexpr auto kKnockLimit = 200ms;

const std::string kAbortKey = "abort";
const std::string kNonceKey = "nonce";
const std::string kAdmittedKey = "admitted";
const std::string kDoneKey = "done";
const std::string kDiagnosedKey = "diagnosed";

std::vector<uint8_t> bytes(const std::string& text) { return {text.begin(), text.end()}; }
std::string text(const std::vector<uint8_t>& data) { return {data.begin(), data.end()}; }

std::string rankList(const std::vector<int>& ranks) {
  std::ostringstream out;
  out << (ranks.size() == 1 ? "rank " : "ranks ");
  for (std::size_t i = 0; i < ranks.size(); ++i) out << (i ? ", " : "") << ranks[i];
  return out.str();
}

std::string seconds(double value) {
  std::ostringstream out;
  out << value << " s";
  return out.str();
}

c10::intrusive_ptr<c10d::Store> connectStore(const ProcessGroupOptions& options, bool server,
                                             std::chrono::milliseconds timeout) {
  c10d::TCPStoreOptions storeOptions;
  storeOptions.port = std::uint16_t(options.masterPort);
  storeOptions.isServer = server;
  storeOptions.numWorkers = c10::nullopt;  // we count the ranks ourselves, with names
  storeOptions.waitWorkers = false;
  storeOptions.timeout = timeout;
  if (server) {
#if TORCH_VERSION_MAJOR >= 2
    storeOptions.masterListenFd = listenOn(options.masterAddr, options.masterPort);
#else
    // 1.13 binds every interface itself; a trial bind still names a wrong address or a busy port.
    ::close(listenOn(options.masterAddr, options.masterPort));
#endif
  }
  return c10::make_intrusive<c10d::TCPStore>(options.masterAddr, storeOptions);
}

/// The Debian build's own store port under torchrun: below Linux's ephemeral range
/// (32768-60999), spread by a multiplier. The port above MASTER_PORT (which it was) is
/// where the agent's next client connections tend to land, and such a connection's
/// TIME_WAIT blocks a bind even with SO_REUSEADDR (2 of 13 TestDistributed runs here).
#if TORCH_VERSION_MAJOR < 2
int ownStorePort(int masterPort) { return 10000 + int((int64_t(masterPort) * 7919) % 22768); }
#endif

std::string key(const char* kind, int rank) { return std::string(kind) + "/" + std::to_string(rank); }

/// Where this run's store is and who serves it. Under torchrun the agent serves one on
/// MASTER_PORT and every rank joins it as a client. LibTorch 1.x's TCPStore client cannot
/// speak the store protocol of torchrun 2.x (the agent drops the connection: "Invalid string
/// size"), so a 1.x build keeps its own store beside the agent's, served by rank 0 on a port
/// every rank derives from MASTER_PORT alone (ownStorePort).
ProcessGroupOptions storeEndpoint(ProcessGroupOptions options) {
#if TORCH_VERSION_MAJOR < 2
  if (options.agentServesStore) {
    options.agentServesStore = false;
    options.masterPort = ownStorePort(options.masterPort);
  }
#endif
  return options;
}

}  // namespace

Rendezvous::Rendezvous(const ProcessGroupOptions& requested, const nlohmann::json& hello)
    : m_options(storeEndpoint(requested)) {
  ignoreBrokenPipes();  // a rank that dies must not take this one down silently (BrokenPipes.h)
  const ProcessGroupOptions& options = m_options;
  if (requested.agentServesStore && !options.agentServesStore && options.rank == 0) {
    // The one port of the run a firewall between hosts must let through that no flag names.
    std::cerr << "rank 0: serving this run's own store on port " << options.masterPort << ", derived from MASTER_PORT "
              << requested.masterPort << " (this build's LibTorch " << TORCH_VERSION_MAJOR << "." << TORCH_VERSION_MINOR
              << " cannot join the store torchrun's agent serves); ranks on other hosts connect to it there" << std::endl;
  }
  const auto timeout = std::chrono::milliseconds(int64_t(options.timeoutSeconds * 1000));
  const bool servesStore = options.rank == 0 && !options.agentServesStore;
  if (!servesStore) {
    // Said now: the store client would retry the lookup until --timeout, then blame rank 0.
    const ResolvedAddresses master =
        resolveAddresses(options.masterAddr, std::to_string(options.masterPort), SOCK_STREAM);
    if (master.status != 0) {
      throw DistributedError("--master-addr " + options.masterAddr + " is no address this host can find (" +
                             ::gai_strerror(master.status) +
                             "); give rank 0's host name or IP address, as this host reaches it");
    }
    // Only another process's store can fall silent: one served here answers while this runs.
    m_silenceWatch = std::make_unique<SilentStoreWatch>(options.masterPort, timeout);
  }
  try {
    m_store = connectStore(options, servesStore, timeout);
    heardTheStore();
  } catch (const DistributedError&) {
    throw;  // listenOn's, which says what is wrong with the address or port
  } catch (const std::exception& error) {
    if (m_silenceWatch && m_silenceWatch->fired()) throw DistributedError(silentStoreMessage());
    if (options.rank == 0) {
      throw DistributedError("rank 0 could not serve the rendezvous on port " +
                             std::to_string(options.masterPort) + " (" + describeException(error) +
                             "); the port is probably in use by another run or program: choose "
                             "another --master-port for every rank");
    }
    throw DistributedError("rank " + std::to_string(options.rank) + " could not reach rank 0 at " + where() +
                           " within " + seconds(options.timeoutSeconds) + " (" + describeException(error) +
                           "); start rank 0 first, and check --master-addr and --master-port");
  }
  // One file per run and port had stayed in the private folder for good.
  const struct KeptTokenRemoval {
    const std::string& file;
    ~KeptTokenRemoval() {
      if (!file.empty()) std::remove(file.c_str());
    }
  } keptTokenRemoval{m_keptTokenFile};
  try {
    m_heartbeatStore = connectStore(options, false, timeout);
    heardTheStore();
    // Our keys under their own prefix (per torchrun restart): a store served by torchrun's
    // agent holds its own keys, and those of earlier attempts.
    const std::string prefix = "ensemblelab/" + std::to_string(options.restartCount);
    m_store = c10::make_intrusive<c10d::PrefixStore>(prefix, m_store);
    m_heartbeatStore = c10::make_intrusive<c10d::PrefixStore>(prefix, m_heartbeatStore);
    m_store->add(key("heartbeat", options.rank), 1);
    if (m_store->add(key("claim", options.rank), 1) > 1) {
      abortRun("two processes joined " + where() + " as rank " + std::to_string(options.rank) +
               "; give every process its own --rank from 0 to " + std::to_string(options.worldSize - 1));
    }
    // The proof before the hello: whoever reads a hello finds its proof beside it.
    m_store->set(key("proof", options.rank), bytes(proveToken()));
    nlohmann::json mine = hello;
    mine["world_size"] = options.worldSize;
    mine["host"] = environment::hostName();
    openPulse(mine);
    m_store->set(key("hello", options.rank), bytes(mine.dump()));
    if (options.rank == 0) m_leaderHello = mine;
    waitForPeers(mine);
    awaitAdmission();
    m_silenceWatch.reset();  // the rendezvous is over; training has its own watches
    // Started last: a constructor that throws must not leave a running thread behind.
    m_heartbeat = std::make_unique<Heartbeat>(m_heartbeatStore, key("heartbeat", options.rank), kHeartbeatPeriod);
  } catch (const Error&) {
    throw;  // ours, which say what is wrong (a token that cannot be kept, a refused rank)
  } catch (const std::exception& error) {
    if (m_silenceWatch && m_silenceWatch->fired()) throw DistributedError(silentStoreMessage());
    throw DistributedError("lost the rendezvous at " + where() + " while waiting for the other ranks (" +
                           describeException(error) + "); rank 0, which serves it, has stopped");
  }
}

std::string Rendezvous::silentStoreMessage() const {
  const std::string server = m_options.agentServesStore ? "torchrun's agent" : "rank 0";
  return "rank " + std::to_string(m_options.rank) + " reached the rendezvous at " + where() +
         ", but nothing there answered for " + seconds(m_options.timeoutSeconds) + ": " + server +
         " is stopped or hung (suspended with Ctrl+Z, or held in a debugger), or another program listens on that "
         "port; check " + server + "'s process, or start every rank with another --master-port";
}

void Rendezvous::heardTheStore() {
  if (m_silenceWatch) m_silenceWatch->heard();
}

std::string Rendezvous::where() const { return m_options.masterAddr + ":" + std::to_string(m_options.masterPort); }

void Rendezvous::abortRun(const std::string& message) {
  try {
    m_store->set(kAbortKey, bytes(message));
    // Rank 0 serves the store: stay long enough for the others' next poll to read why.
    if (m_options.rank == 0) std::this_thread::sleep_for(300ms);
  } catch (const std::exception&) {
  }
  throw DistributedError(message);
}

namespace {
// Either rank of a mismatched pair may notice it first, so the message names the lower rank
// first: both ranks, and every run of the same mistake, print the same words.
std::string disagreement(int rankA, std::string valueA, int rankB, std::string valueB, const std::string& what,
                         const std::string& advice) {
  if (rankB < rankA) {
    std::swap(rankA, rankB);
    std::swap(valueA, valueB);
  }
  return "rank " + std::to_string(rankA) + " was started with " + what + valueA + " but rank " +
         std::to_string(rankB) + " with " + valueB + "; " + advice;
}
}  // namespace

std::string Rendezvous::proveToken() {
  std::optional<std::string> token = givenRunToken();
  const std::string kept = localTokenPath(m_options.masterAddr, m_options.masterPort);
  if (m_options.rank == 0) {
    if (!token) {
      token = newRandomHex();
      keepLocalToken(kept, *token);
      m_keptTokenFile = kept;
      std::cerr << "rank 0: no run token was given, so this run's token is " << *token
                << " (kept for this user's ranks on this host in " << kept
                << " until they join); start ranks on other hosts with ENSEMBLELAB_RUN_TOKEN=" << *token << std::endl;
    }
    m_nonce = newRandomHex();
    m_store->set(kNonceKey, bytes(m_nonce));
  } else {
    awaitKey(kNonceKey, "rank 0 did not open the run at " + where() + " within " + seconds(m_options.timeoutSeconds) +
                            "; start rank 0, or raise --timeout");
    m_nonce = text(m_store->get(kNonceKey));
    // Rank 0 kept the token it made before it opened the run: it is there by now.
    if (!token) token = readLocalToken(kept);
  }
  m_token = token.value_or("");
  return m_token.empty() ? std::string() : tokenProof(m_token, m_nonce, m_options.rank);
}

void Rendezvous::awaitAdmission() {
  if (m_options.rank == 0) {
    m_store->set(kAdmittedKey, bytes("yes"));
    return;
  }
  // Only rank 0 judges the tokens; a refused rank learns why here, before any collective.
  awaitKey(kAdmittedKey, "rank 0 did not admit rank " + std::to_string(m_options.rank) + " to the run at " + where() +
                             " within " + seconds(m_options.timeoutSeconds) + "; see rank 0's log");
}

void Rendezvous::awaitKey(const std::string& name, const std::string& late) {
  const auto deadline = Clock::now() + std::chrono::milliseconds(int64_t(m_options.timeoutSeconds * 1000));
  while (!m_store->check({name})) {
    heardTheStore();
    if (m_store->check({kAbortKey})) throw DistributedError(text(m_store->get(kAbortKey)));
    if (Clock::now() > deadline) throw DistributedError(late);
    std::this_thread::sleep_for(20ms);
  }
}

void Rendezvous::checkToken(int rank, const nlohmann::json& theirs) {
  // Rank 0's token is the run's: only rank 0 judges (a rank given a wrong token would
  // otherwise find everyone else wrong).
  if (m_options.rank != 0) return;
  const std::string proof = m_store->check({key("proof", rank)}) ? text(m_store->get(key("proof", rank))) : "";
  if (proof == tokenProof(m_token, m_nonce, rank)) return;
  const std::string who = "rank " + std::to_string(rank) + " (on host " + theirs.value("host", "?") + ")";
  if (proof.empty()) {
    abortRun(who + " was refused: it has no run token. Rank 0 printed the token it made for this run; start " +
             "every rank with it in ENSEMBLELAB_RUN_TOKEN (or a file named by ENSEMBLELAB_RUN_TOKEN_FILE)");
  }
  abortRun(who + " was refused: its run token is not this run's. Give every rank the same " +
           "ENSEMBLELAB_RUN_TOKEN (or token file); a process that does not know it cannot join");
}

std::string sameGpuConflict(int rankA, const nlohmann::json& helloA, int rankB, const nlohmann::json& helloB) {
  const std::string gpu = helloA.value("gpu", "");
  if (gpu.empty() || gpu != helloB.value("gpu", "") || helloA.value("host", "") != helloB.value("host", "")) return {};
  if (rankB < rankA) std::swap(rankA, rankB);
  return "ranks " + std::to_string(rankA) + " and " + std::to_string(rankB) + " both train on the GPU at PCI bus " + gpu +
         " of host " + helloA.value("host", "") + ", and NCCL needs a GPU of its own for each rank; give each rank "
         "its own GPU (--devices cuda:N, or leave --devices out and torchrun's LOCAL_RANK picks one), or use "
         "--backend gloo";
}

void Rendezvous::checkPeer(int rank, const nlohmann::json& mine, const nlohmann::json& theirs) {
  if (const std::string conflict = sameGpuConflict(m_options.rank, mine, rank, theirs); !conflict.empty()) {
    abortRun(conflict);
  }
  const auto differ = [&](const std::string& what, const std::string& their, const std::string& my,
                          const std::string& advice) {
    abortRun(disagreement(rank, their, m_options.rank, my, what, advice));
  };
  if (theirs.at("world_size") != mine.at("world_size")) {
    differ("world size ", theirs.at("world_size").dump(), mine.at("world_size").dump(),
           "start every rank with the same --world-size");
  }
  if (theirs.at("replicas") != mine.at("replicas")) {
    differ("replicas = ", theirs.at("replicas").dump(), mine.at("replicas").dump(),
           "give every rank the same number of devices");
  }
  if (theirs.value("backend", "") != mine.value("backend", "")) {
    differ("backend ", theirs.value("backend", ""), mine.value("backend", ""),
           "give every rank the same --backend and devices of one kind");
  }
  const nlohmann::json& a = mine.at("config");
  const nlohmann::json& b = theirs.at("config");
  for (auto it = a.begin(); it != a.end(); ++it) {
    if (!b.contains(it.key()) || b.at(it.key()) != it.value()) {
      differ(it.key() + " = ", b.contains(it.key()) ? b.at(it.key()).dump() : "(unset)", it.value().dump(),
             "every rank must train the same experiment");
    }
  }
}

void Rendezvous::waitForPeers(const nlohmann::json& mine) {
  const auto deadline = Clock::now() + std::chrono::milliseconds(int64_t(m_options.timeoutSeconds * 1000));
  std::vector<bool> checked(std::size_t(m_options.worldSize), false);
  checked[std::size_t(m_options.rank)] = true;
  for (;;) {
    if (m_store->check({kAbortKey})) throw DistributedError(text(m_store->get(kAbortKey)));
    heardTheStore();
    std::vector<int> missing;
    for (int rank = 0; rank < m_options.worldSize; ++rank) {
      if (checked[std::size_t(rank)]) continue;
      if (!m_store->check({key("hello", rank)})) {
        missing.push_back(rank);
        continue;
      }
      const nlohmann::json theirs = nlohmann::json::parse(text(m_store->get(key("hello", rank))));
      checkToken(rank, theirs);
      checkPeer(rank, mine, theirs);
      if (rank == 0) m_leaderHello = theirs;
      if (theirs.contains("pulse")) {
        const Endpoint pulse{theirs["pulse"].value("address", ""), theirs["pulse"].value("port", 0)};
        // Only a pulse that answers now can later prove its owner gone by a refusal: one
        // refused from the start (a firewall's reject) proves nothing, and is never knocked.
        if (knock(pulse.address, pulse.port, kKnockLimit) == KnockAnswer::Accepted) m_pulses[std::size_t(rank)] = pulse;
      }
      checked[std::size_t(rank)] = true;
    }
    if (missing.empty()) return;
    if (Clock::now() > deadline) {
      abortRun(rankList(missing) + " of " + std::to_string(m_options.worldSize) + " did not join the run at " +
               where() + " within " + seconds(m_options.timeoutSeconds) +
               "; start every rank with the same --world-size, --master-addr and --master-port "
               "(or raise --timeout)");
    }
    std::this_thread::sleep_for(50ms);
  }
}

void Rendezvous::openPulse(nlohmann::json& hello) {
  m_pulses.assign(std::size_t(m_options.worldSize), Endpoint{});
  try {
    const std::string address = localAddressTowards(m_options.masterAddr);
    m_pulse = std::make_unique<PulsePort>(address);
    hello["pulse"] = {{"address", address}, {"port", m_pulse->port()}};
  } catch (const Error&) {
    // A liveness aid only: without it a killed peer Gloo missed is found at --timeout.
  }
}

std::string Rendezvous::gonePeer() const {
  for (int rank = 0; rank < m_options.worldSize; ++rank) {
    const Endpoint& pulse = m_pulses[std::size_t(rank)];
    if (rank == m_options.rank || pulse.port == 0) continue;
    if (knock(pulse.address, pulse.port, kKnockLimit) == KnockAnswer::Refused) {
      return "rank " + std::to_string(rank) + " is gone: nothing listens any more at " + pulse.address + ":" +
             std::to_string(pulse.port) + ", where its process answered while it lived";
    }
  }
  return {};
}

std::string Rendezvous::diagnose(const std::string& error) {
  int survivors = m_options.worldSize;
  const std::string diagnosis = findLostRank(error, survivors);
  // With rank 0 unreachable every store call below would wait out its timeout in vain.
  if (m_storeLost) return diagnosis;
  try {
    // Leave the conclusion for the ranks still diagnosing, and keep the store (served by
    // rank 0) up until they have read it: otherwise they could only report rank 0 gone.
    m_store->set(key("failed", m_options.rank), bytes(diagnosis));
    m_store->add(kDiagnosedKey, 1);
    const auto deadline = Clock::now() + kSilenceLimit + 3s;
    while (m_options.rank == 0 && m_store->add(kDiagnosedKey, 0) < survivors && Clock::now() < deadline) {
      std::this_thread::sleep_for(20ms);
    }
  } catch (const std::exception&) {
  }
  return diagnosis;
}

std::string Rendezvous::findLostRank(const std::string& error, int& survivors) {
  const std::string cause = " (the process group reported: " + error + ")";
  const auto storeGone = [&] {
    m_storeLost = true;
    survivors = 0;
    return "rank 0 (which serves the rendezvous at " + where() + ") is gone: killed, crashed or unreachable; rank " +
           std::to_string(m_options.rank) + " stops too" + cause;
  };
  // Behind a cut link the store's host answers nothing, and a call on the store's open
  // connection would wait for ever (LibTorch 2.x applies no timeout to it): ask first.
  if (m_options.rank != 0 && !acceptsConnections(m_options.masterAddr, m_options.masterPort, kSilenceLimit)) {
    return storeGone();
  }
  try {
    m_store->setTimeout(std::chrono::milliseconds(5000));
    const auto announced = [&]() -> std::string {
      for (int rank = 0; rank < m_options.worldSize; ++rank) {
        if (rank != m_options.rank && m_store->check({key("failed", rank)})) {
          return "rank " + std::to_string(rank) + " stopped the run: " + text(m_store->get(key("failed", rank)));
        }
      }
      return {};
    };
    if (std::string message = announced(); !message.empty()) return message;
    std::vector<int64_t> before;
    for (int rank = 0; rank < m_options.worldSize; ++rank) before.push_back(m_store->add(key("heartbeat", rank), 0));
    std::this_thread::sleep_for(kSilenceLimit);
    std::vector<int> silent;
    for (int rank = 0; rank < m_options.worldSize; ++rank) {
      if (rank != m_options.rank && m_store->add(key("heartbeat", rank), 0) == before[std::size_t(rank)]) {
        silent.push_back(rank);
      }
    }
    survivors = m_options.worldSize - int(silent.size());
    if (!silent.empty()) {
      return rankList(silent) + " of " + std::to_string(m_options.worldSize) +
             " stopped responding (killed, crashed or hung); rank " + std::to_string(m_options.rank) +
             " stops too" + cause;
    }
    if (std::string message = announced(); !message.empty()) return message;
    return "a collective operation failed although every rank is still alive" + cause;
  } catch (const std::exception&) {
    return storeGone();
  }
}

void Rendezvous::announceFailure(const std::string& message) {
  if (m_storeLost) return;
  try {
    m_store->setTimeout(std::chrono::milliseconds(2000));
    m_store->set(key("failed", m_options.rank), bytes(message));
  } catch (const std::exception&) {
  }
}

void Rendezvous::finish() {
  try {
    m_store->add(kDoneKey, 1);
    if (m_options.rank != 0) return;
    const auto deadline = Clock::now() + std::chrono::milliseconds(int64_t(m_options.timeoutSeconds * 1000));
    while (m_store->add(kDoneKey, 0) < m_options.worldSize && Clock::now() < deadline) {
      std::this_thread::sleep_for(20ms);
    }
  } catch (const std::exception&) {
    // Finishing is a courtesy to the others; the run itself is complete.
  }
}

}  // namespace ensemble
