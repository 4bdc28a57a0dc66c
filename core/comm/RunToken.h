// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Who may join a multi-process run. Every rank holds the same secret, the run token, and
// proves it without sending it: rank 0 puts a fresh random nonce in the store, and each
// rank answers with HMAC-SHA-256(token, nonce/rank). Anyone can read the store, so the
// token itself never goes there; an answer is good for one rank of one run only.
//
// Where the token comes from: ENSEMBLELAB_RUN_TOKEN, or the file ENSEMBLELAB_RUN_TOKEN_FILE
// names. Where neither is set, rank 0 makes one, prints it, and keeps it for ranks of the
// same user on the same host in a private file (so one-host runs and torchrun need nothing);
// ranks on other hosts must be given it. What this does and does not protect: README,
// "Who may join: the run token and the trust model". Torch-free.
#include <optional>
#include <string>

namespace ensemble {

/// The token given to this process, or nullopt. Throws ConfigError for a token file that
/// cannot be read or is empty.
std::optional<std::string> givenRunToken();
/// 128 random bits as 32 hex digits (std::random_device: the kernel's generator).
std::string newRandomHex();
/// This rank's answer to `nonce`.
std::string tokenProof(const std::string& token, const std::string& nonce, int rank);

/// The private file where rank 0 keeps a token it made, for the run at `masterAddr:port`.
std::string localTokenPath(const std::string& masterAddr, int port);
/// Writes `token` there (folder 0700, file 0600, replaced atomically). Throws ConfigError
/// when the folder exists but is not this user's private folder.
void keepLocalToken(const std::string& path, const std::string& token);
/// The token kept at `path`, or nullopt.
std::optional<std::string> readLocalToken(const std::string& path);

}  // namespace ensemble
