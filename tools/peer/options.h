// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
//
// cmkit-peer's command line: getopt_long per subcommand, every number
// range-checked, unknown options and stray arguments refused, private data
// checked against what rdma_cm can carry.  No rdma-core here, so host tests
// can exercise every rule (tests/peer_options_test.cpp).
#ifndef CMKIT_PEER_OPTIONS_H
#define CMKIT_PEER_OPTIONS_H

#include <sys/socket.h>

#include <cstdint>
#include <string>
#include <vector>

namespace cmkit_peer {

// Exit statuses (docs/peer.md).
enum ExitStatus {
	kExitOk = 0,		// the expected outcome happened
	kExitOther = 1,		// another outcome (call: not connected)
	kExitUsage = 2,		// usage or setup error
	kExitRejected = 3,	// call: a reply was a well-formed refusal
	kExitMalformed = 4,	// call: a reply broke RFC 8166/5531
	kExitTimeout = 5,	// call: a call got no reply in time
	kExitDisconnected = 6,	// call: the connection ended under the calls
};

enum class Command { kNone, kServe, kConnect, kSrpLogin, kCall, kMpaConnect };

// serve --rpc-error: answer every call with RDMA_ERROR.
enum class RpcError { kNone, kVers, kChunk };
// serve --rpc-reject: answer every call with an RPC-level refusal.
enum class RpcReject { kNone, kProg, kProgVers, kProc, kGarbage, kSystem, kRpcVers, kAuth };
// serve --rpc-corrupt: damage every reply.
enum class RpcCorrupt { kNone, kShort, kXid, kVers };
// mpa-connect --rtr: the RTR type its request offers; none: no peer-to-peer.
// From 1 in the order of the option's words, as the parser maps them.
enum class MpaRtr { kWrite = 1, kRead, kNone };

struct Options {
	Command cmd = Command::kNone;

	// Every command.
	std::string addr;		// as given
	sockaddr_storage sa{};		// parsed, with the port
	uint16_t port = 0;
	uint32_t timeout_s = 30;

	// serve
	bool has_cmp = false;
	uint32_t cmp_send = 1024, cmp_recv = 1024;
	bool reject = false;
	std::vector<uint8_t> reject_pdata;
	bool has_disconnect_after = false;
	uint32_t disconnect_after_ms = 0;
	bool rpc = false;
	uint32_t credits = 32;		// the grant in every reply (0 allowed)
	uint32_t rpc_recvs = 0;		// receives to post; 0: from the grant
	RpcError rpc_error = RpcError::kNone;
	RpcReject rpc_reject = RpcReject::kNone;
	RpcCorrupt rpc_corrupt = RpcCorrupt::kNone;
	uint32_t rpc_drop = 0;		// 1-based call number; 0: none
	uint32_t rpc_disconnect_at = 0;	// 1-based call number; 0: none
	uint32_t rpc_delay_ms = 0;
	bool rpc_bad_xid = false;
	bool rpc_quiet = false;		// no line per call

	// connect
	std::vector<uint8_t> pdata;
	std::string expect;		// connect and srp-login

	// srp-login
	uint32_t iu_len = 4096;
	uint16_t buf_fmt = 6;
	uint8_t opcode = 0;
	bool has_initiator_port_id = false, has_target_port_id = false;
	uint8_t initiator_port_id[16] = {}, target_port_id[16] = {};

	// call, serve and mpa-connect
	uint32_t count = 1;
	uint32_t program = 100003, version = 3;
	uint32_t call_credits = 32;	// receive ring: the credits asked for
	uint32_t inline_send = 1024, inline_recv = 1024;
	bool json_latencies = false;
	bool verbose = false;

	// mpa-connect (--count and --pdata as above)
	MpaRtr mpa_rtr = MpaRtr::kWrite;
	bool no_rtr = false;		// offer an RTR but never send it
	bool busy_poll = false;		// spin on recv() for the reply
	uint32_t hold_ms = 2000;	// keep each connection open after the RTR
};

struct ParseResult {
	enum Status { kRun, kHelp, kError } status = kError;
	std::string text;	// kHelp: for stdout; kError: message and usage line
	int ExitCode() const { return status == kHelp ? kExitOk : kExitUsage; }
};

// Parse argv (argv[1] is the command).  Resets getopt's state first.
ParseResult ParseArgs(int argc, char **argv, Options *o);

// serve's options for its connection number @i (from 0): --rpc-disconnect-at
// ends the first connection only, so a client that reconnects (--count 2)
// is served to the end.
Options ServeOptionsFor(const Options &o, uint32_t i);

// Bounds of the documented options.
constexpr uint32_t kMaxTimeoutS = 86400;
constexpr uint32_t kMaxDelayMs = 3600000;
constexpr uint32_t kMaxRing = 16384;		// call --credits, serve --rpc-recvs
constexpr uint32_t kMaxCount = 10000000;	// call --count
constexpr uint32_t kMinInline = 1024;		// RFC 8797: 1 KiB units ...
constexpr uint32_t kMaxInline = 262144;		// ... up to 256 KiB
constexpr size_t kMaxPrivateData = 255;		// rdma_conn_param.private_data_len is a u8
constexpr size_t kMaxMpaPrivateData = 508;	// RFC 5044's 512, less MPA v2's IRD/ORD

// "1234" or "0x4d2" (no sign, no blanks, nothing after) within [lo, hi].
bool ParseNumber(const char *s, uint64_t lo, uint64_t hi, uint64_t *out);
// An even number of hex digits; false (and *out unspecified) otherwise.
bool ParseHex(const std::string &s, std::vector<uint8_t> *out);
// Lower-case hex digits of @v.
std::string Hex(const std::vector<uint8_t> &v);
// An IPv4 or IPv6 literal and a port.
bool ParseAddress(const std::string &s, uint16_t port, sockaddr_storage *out);

// Private data limits of rdma_cm per transport, and why.
enum class Transport { kIb, kIwarp, kOther };
enum class CmOp { kConnect, kAccept, kReject };
size_t PrivateDataLimit(Transport t, CmOp op);
std::string PrivateDataLimitWhy(Transport t, CmOp op);

} // namespace cmkit_peer

#endif
