// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
//
// cmkit-peer's command line (see options.h).
#include "options.h"

#include <arpa/inet.h>
#include <getopt.h>
#include <netinet/in.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace cmkit_peer {

namespace {

enum OptId {
	kOptHelp = 'h',
	kOptAddr = 256,
	kOptPort,
	kOptTimeout,
	kOptCmp,
	kOptReject,
	kOptDisconnectAfter,
	kOptRpc,
	kOptCredits,
	kOptRpcRecvs,
	kOptRpcError,
	kOptRpcReject,
	kOptRpcCorrupt,
	kOptRpcDrop,
	kOptRpcDisconnectAt,
	kOptRpcDelayMs,
	kOptRpcBadXid,
	kOptRpcQuiet,
	kOptPdata,
	kOptExpect,
	kOptIuLen,
	kOptBufFmt,
	kOptOpcode,
	kOptInitiatorPortId,
	kOptTargetPortId,
	kOptCount,
	kOptProgram,
	kOptVersion,
	kOptInlineSend,
	kOptInlineRecv,
	kOptJsonLatencies,
	kOptVerbose,
	kOptRtr,
	kOptNoRtr,
	kOptHoldMs,
	kOptBusyPoll,
};

#define COMMON_OPTIONS                                        \
	{"addr", required_argument, nullptr, kOptAddr},       \
	{"port", required_argument, nullptr, kOptPort},       \
	{"timeout", required_argument, nullptr, kOptTimeout}, \
	{"help", no_argument, nullptr, kOptHelp}

const option kServeOptions[] = {
	COMMON_OPTIONS,
	{"cmp", required_argument, nullptr, kOptCmp},
	{"reject", required_argument, nullptr, kOptReject},
	{"disconnect-after", required_argument, nullptr, kOptDisconnectAfter},
	{"rpc", no_argument, nullptr, kOptRpc},
	{"credits", required_argument, nullptr, kOptCredits},
	{"rpc-recvs", required_argument, nullptr, kOptRpcRecvs},
	{"rpc-error", required_argument, nullptr, kOptRpcError},
	{"rpc-reject", required_argument, nullptr, kOptRpcReject},
	{"rpc-corrupt", required_argument, nullptr, kOptRpcCorrupt},
	{"rpc-drop", required_argument, nullptr, kOptRpcDrop},
	{"rpc-disconnect-at", required_argument, nullptr, kOptRpcDisconnectAt},
	{"rpc-delay-ms", required_argument, nullptr, kOptRpcDelayMs},
	{"rpc-bad-xid", no_argument, nullptr, kOptRpcBadXid},
	{"rpc-quiet", no_argument, nullptr, kOptRpcQuiet},
	{"count", required_argument, nullptr, kOptCount},
	{nullptr, 0, nullptr, 0},
};

const option kConnectOptions[] = {
	COMMON_OPTIONS,
	{"pdata", required_argument, nullptr, kOptPdata},
	{"expect", required_argument, nullptr, kOptExpect},
	{nullptr, 0, nullptr, 0},
};

const option kSrpLoginOptions[] = {
	COMMON_OPTIONS,
	{"iu-len", required_argument, nullptr, kOptIuLen},
	{"buf-fmt", required_argument, nullptr, kOptBufFmt},
	{"opcode", required_argument, nullptr, kOptOpcode},
	{"initiator-port-id", required_argument, nullptr, kOptInitiatorPortId},
	{"target-port-id", required_argument, nullptr, kOptTargetPortId},
	{"expect", required_argument, nullptr, kOptExpect},
	{nullptr, 0, nullptr, 0},
};

const option kCallOptions[] = {
	COMMON_OPTIONS,
	{"count", required_argument, nullptr, kOptCount},
	{"program", required_argument, nullptr, kOptProgram},
	{"version", required_argument, nullptr, kOptVersion},
	{"credits", required_argument, nullptr, kOptCredits},
	{"inline-send", required_argument, nullptr, kOptInlineSend},
	{"inline-recv", required_argument, nullptr, kOptInlineRecv},
	{"json-latencies", no_argument, nullptr, kOptJsonLatencies},
	{"verbose", no_argument, nullptr, kOptVerbose},
	{nullptr, 0, nullptr, 0},
};

const option kMpaConnectOptions[] = {
	COMMON_OPTIONS,
	{"rtr", required_argument, nullptr, kOptRtr},
	{"no-rtr", no_argument, nullptr, kOptNoRtr},
	{"count", required_argument, nullptr, kOptCount},
	{"hold-ms", required_argument, nullptr, kOptHoldMs},
	{"busy-poll", no_argument, nullptr, kOptBusyPoll},
	{"pdata", required_argument, nullptr, kOptPdata},
	{nullptr, 0, nullptr, 0},
};

#undef COMMON_OPTIONS

const char kMainHelp[] =
	"usage: cmkit-peer <command> [options]    (cmkit-peer <command> --help)\n"
	"\n"
	"A user-space rdma_cm peer for cmkit's handlers, on librdmacm and libibverbs.\n"
	"Every CM event is one JSON line on stdout; every wait has a timeout.\n"
	"\n"
	"commands:\n"
	"  serve        accept (or reject) connections; with --rpc, answer RPC calls\n"
	"  connect      connect with private data, then disconnect\n"
	"  srp-login    log in to an SRP target through rdma_cm\n"
	"  call         send RPC-over-RDMA NULL calls, report round trips\n"
	"  mpa-connect  an iWARP initiator on plain TCP (no RDMA device): MPA v2\n"
	"               request, reply, RTR (RFC 5044, RFC 6581)\n"
	"\n"
	"exit status: 0 the expected outcome happened, 1 another one (call: not\n"
	"connected), 2 usage or setup error; call also 3 a reply was a refusal,\n"
	"4 a reply was malformed, 5 a call timed out, 6 the connection ended.\n";

const char kServeUsage[] =
	"usage: cmkit-peer serve --addr A --port P [--cmp SEND:RECV | --reject HEX]\n"
	"                        [--disconnect-after MS] [--count N] [--timeout S]\n"
	"                        [--rpc [RPC options]]\n";

const char kServeHelp[] =
	"\n"
	"Listen on A:P, accept one connection (with an RFC 8797 private message when\n"
	"--cmp is given, else with none) or reject it, then wait for the peer's\n"
	"disconnect (or disconnect after --disconnect-after); with --count, N\n"
	"connections one after another.\n"
	"\n"
	"  --addr A               IPv4 or IPv6 address of an RDMA device\n"
	"  --port P               1..65535\n"
	"  --cmp SEND:RECV        accept with RFC 8797 inline sizes in bytes, each a\n"
	"                         multiple of 1024 in 1024..262144\n"
	"  --reject HEX           reject with this private data (IB/RoCE: up to 148\n"
	"                         bytes, iWARP: 248)\n"
	"  --disconnect-after MS  disconnect MS (0..3600000) ms after ESTABLISHED\n"
	"  --count N              connections to serve one after another,\n"
	"                         1..10000000 (default 1)\n"
	"  --timeout S            bound on each wait, 1..86400 s (default 30)\n"
	"\n"
	"RPC-over-RDMA (RFC 8166) calls, after accepting: NULL to any program, and\n"
	"cmkit's RPC test program (0x2000c4b1 version 1: ECHO, FILL, SINK; other\n"
	"procedures get PROC_UNAVAIL) with its data in chunks, as svcrdma serves\n"
	"them: an argument in a read chunk is RDMA Read before the call is answered,\n"
	"a result goes into the write chunk offered (RDMA Write, then the reply),\n"
	"else inline; data up to 1 MiB; chunks that cannot carry what the call says\n"
	"get RDMA_ERROR ERR_CHUNK.\n"
	"  --rpc                  answer each call with MSG_ACCEPTED SUCCESS\n"
	"  --credits N            credit grant in every reply, 0..4294967295 (default 32)\n"
	"  --rpc-recvs N          receives to post, 1..16384 (default: the grant, at\n"
	"                         least 1 and at most 1024, plus 2)\n"
	"  --rpc-error vers|chunk answer every call with RDMA_ERROR ERR_VERS 1..1\n"
	"                         or ERR_CHUNK\n"
	"  --rpc-reject WHAT      answer every call with a refusal: prog\n"
	"                         (PROG_UNAVAIL), progvers (PROG_MISMATCH), proc\n"
	"                         (PROC_UNAVAIL), garbage (GARBAGE_ARGS), system\n"
	"                         (SYSTEM_ERR), rpcvers (RPC_MISMATCH 2..2), auth\n"
	"                         (AUTH_ERROR AUTH_TOOWEAK)\n"
	"  --rpc-corrupt WHAT     damage every reply: short (16 bytes, header only),\n"
	"                         xid (RPC xid differs from rdma_xid), vers\n"
	"                         (rdma_vers 2)\n"
	"  --rpc-drop N           do not answer the Nth call (N from 1)\n"
	"  --rpc-disconnect-at N  disconnect on receiving the Nth call, unanswered\n"
	"                         (replies not yet sent may be flushed); the first\n"
	"                         connection only: with --count 2 a client that\n"
	"                         reconnects is served to the end\n"
	"  --rpc-delay-ms MS      answer each call MS (0..3600000) ms late\n"
	"  --rpc-bad-xid          before the first reply, send one for an xid\n"
	"                         nobody asked for\n"
	"  --rpc-quiet            no line per call (for benchmarks)\n"
	"Each call is a JSON line {\"role\":\"serve\",\"rpc\":\"call\",...} (with the\n"
	"test program's \"procedure\", \"read_bytes\" and \"written_bytes\"); a summary\n"
	"line {\"role\":\"serve\",\"rpc\":\"summary\",...} ends the session.\n"
	"\n"
	"Exit status: 0 each connection was accepted (or rejected, with --reject) and\n"
	"ended by a disconnect; 1 one went otherwise (timeout, a receive completed\n"
	"in error; a send in error only ends the connection); 2 usage or setup error.\n";

const char kConnectUsage[] =
	"usage: cmkit-peer connect --addr A --port P [--pdata HEX]\n"
	"                          [--expect established|rejected|unreachable|error]"
	" [--timeout S]\n";

const char kConnectHelp[] =
	"\n"
	"Resolve A:P, connect with --pdata as private data (IB/RoCE: up to 56 bytes,\n"
	"iWARP: 248), and disconnect once established.\n"
	"\n"
	"  --pdata HEX       private data, an even number of hex digits\n"
	"  --expect WHAT     the outcome that exits 0 (default established)\n"
	"  --timeout S       bound on each wait, 1..86400 s (default 30)\n"
	"\n"
	"Exit status: 0 the expected outcome happened, 1 another one, 2 usage or\n"
	"setup error (private data longer than the device's transport carries).\n";

const char kSrpLoginUsage[] =
	"usage: cmkit-peer srp-login --addr A --port P [--iu-len N] [--buf-fmt N]"
	" [--opcode N]\n"
	"                            [--initiator-port-id HEX] [--target-port-id HEX]\n"
	"                            [--expect accepted|rejected|rejected:0xREASON]"
	" [--timeout S]\n";

const char kSrpLoginHelp[] =
	"\n"
	"Connect with an SRP_LOGIN_REQ in the compact layout rdma_cm initiators use\n"
	"(56 bytes) and report the login response or the reject reason.\n"
	"\n"
	"  --iu-len N              requested max initiator-to-target IU, 0..4294967295\n"
	"                          (default 4096)\n"
	"  --buf-fmt N             buffer formats, 0..65535 (default 6)\n"
	"  --opcode N              0..255 (default 0, SRP_LOGIN_REQ)\n"
	"  --initiator-port-id HEX 16 bytes (32 hex digits)\n"
	"  --target-port-id HEX    16 bytes (32 hex digits)\n"
	"  --expect WHAT           accepted (default), rejected, or rejected:0x<8 hex\n"
	"                          digits> for one reason\n"
	"  --timeout S             bound on each wait, 1..86400 s (default 30)\n"
	"Numbers are decimal, or hex with 0x.\n"
	"\n"
	"Exit status: 0 the expected outcome happened, 1 another one, 2 usage or\n"
	"setup error.\n";

const char kCallUsage[] =
	"usage: cmkit-peer call --addr A --port P [--count N] [--program N --version N]\n"
	"                       [--credits N] [--inline-send B] [--inline-recv B]\n"
	"                       [--json-latencies] [--verbose] [--timeout S]\n";

const char kCallHelp[] =
	"\n"
	"An RPC-over-RDMA version 1 client (RFC 8166): connect with an RFC 8797\n"
	"private message, send N NULL calls (AUTH_NONE) with at most the granted\n"
	"credits outstanding, match replies by xid, and print a JSON summary with\n"
	"round-trip statistics (CLOCK_MONOTONIC, microseconds).\n"
	"\n"
	"  --count N         calls to send, 1..10000000 (default 1)\n"
	"  --program N       RPC program, 0..4294967295 (default 100003, NFS)\n"
	"  --version N       program version, 0..4294967295 (default 3)\n"
	"  --credits N       receive ring: the credits asked for and the most ever\n"
	"                    outstanding, 1..16384 (default 32); a grant of 0 counts\n"
	"                    as 1, a larger one is clamped to N\n"
	"  --inline-send B   inline sizes announced in bytes, multiples of 1024 in\n"
	"  --inline-recv B   1024..262144 (default 1024, RFC 8166's)\n"
	"  --json-latencies  add every call's round trip to the summary\n"
	"  --verbose         a JSON line for every reply, not only the unexpected\n"
	"  --timeout S       bound on each wait and each call, 1..86400 s (default 30)\n"
	"\n"
	"Exit status: 0 every call got an accepted reply; 1 not connected; 2 usage\n"
	"or setup error; 3 a reply was a refusal (RDMA_ERROR, RPC rejection);\n"
	"4 a reply was malformed; 5 a call got no reply in time; 6 the connection\n"
	"ended (disconnect, completion error) with calls unanswered.\n";

const char kMpaConnectUsage[] =
	"usage: cmkit-peer mpa-connect --addr A --port P [--rtr write|read|none]"
	" [--no-rtr]\n"
	"                              [--count N] [--hold-ms MS] [--busy-poll]"
	" [--pdata HEX]\n"
	"                              [--timeout S]\n";

const char kMpaConnectHelp[] =
	"\n"
	"An iWARP initiator's connection setup on a plain TCP socket, for a passive\n"
	"rdma_cm server on an iWARP device (siw): connect to A:P, send an MPA\n"
	"revision 2 request (RFC 5044, RFC 6581: enhanced, IRD 4 and ORD 4, the\n"
	"peer-to-peer bit and the --rtr type), read the reply, send the RTR it\n"
	"chose at once (TCP_NODELAY; with a CRC when the reply has one), keep the\n"
	"connection open for --hold-ms or until the peer closes it, and close.\n"
	"One JSON line per connection.\n"
	"\n"
	"  --rtr write|read|none  the RTR type offered (default write: a zero-length\n"
	"                    RDMA Write); none: no peer-to-peer, no RTR\n"
	"  --no-rtr          offer the RTR but never send it\n"
	"  --count N         connections, one after another, 1..10000000 (default 1)\n"
	"  --hold-ms MS      how long each connection stays open after the RTR,\n"
	"                    0..3600000 ms (default 2000); the peer's close ends it\n"
	"  --busy-poll       wait for the reply spinning on a non-blocking recv()\n"
	"                    (no wakeup between its arrival and the RTR; one CPU\n"
	"                    busy until it comes)\n"
	"  --pdata HEX       private data after the IRD/ORD, up to 508 bytes\n"
	"  --timeout S       bound on the connect and on the reply, 1..86400 s\n"
	"                    (default 30)\n"
	"\n"
	"Exit status: 0 every connection got an accepting reply and its RTR went\n"
	"out; 1 one did not (refused, rejected, a bad reply, a timeout, a reset);\n"
	"2 usage or setup error.\n";

struct CommandSpec {
	const char *name;
	Command cmd;
	const option *opts;
	const char *usage;
	const char *help;
};

const CommandSpec kCommands[] = {
	{"serve", Command::kServe, kServeOptions, kServeUsage, kServeHelp},
	{"connect", Command::kConnect, kConnectOptions, kConnectUsage, kConnectHelp},
	{"srp-login", Command::kSrpLogin, kSrpLoginOptions, kSrpLoginUsage, kSrpLoginHelp},
	{"call", Command::kCall, kCallOptions, kCallUsage, kCallHelp},
	{"mpa-connect", Command::kMpaConnect, kMpaConnectOptions, kMpaConnectUsage,
	 kMpaConnectHelp},
};

ParseResult Error(const CommandSpec *spec, const std::string &msg)
{
	ParseResult r;
	r.status = ParseResult::kError;
	if (spec) {
		r.text = std::string("cmkit-peer ") + spec->name + ": " + msg + "\n" + spec->usage +
			 "Try 'cmkit-peer " + spec->name + " --help'.\n";
	} else {
		r.text = "cmkit-peer: " + msg + "\n" +
			 "usage: cmkit-peer serve|connect|srp-login|call|mpa-connect [options]\n"
			 "Try 'cmkit-peer --help'.\n";
	}
	return r;
}

// The option named by @arg ("--name" or "--name=value"), or nullptr.
const option *FindOption(const option *opts, const char *arg)
{
	if (strncmp(arg, "--", 2))
		return nullptr;
	std::string name(arg + 2);
	name = name.substr(0, name.find('='));
	for (const option *o = opts; o->name; o++)
		if (name == o->name)
			return o;
	return nullptr;
}

// The options that "--prefix" abbreviates, when more than one does.
std::string PrefixMatches(const option *opts, const char *arg)
{
	if (strncmp(arg, "--", 2))
		return "";
	std::string prefix(arg + 2), all;
	prefix = prefix.substr(0, prefix.find('='));
	int n = 0;
	for (const option *o = opts; o->name; o++) {
		if (!prefix.empty() && !strncmp(o->name, prefix.c_str(), prefix.size())) {
			all += std::string(n ? ", --" : "--") + o->name;
			n++;
		}
	}
	return n > 1 ? all : "";
}

// Parses numbers, sizes and hex for one option, with its name in errors.
class ArgParser {
public:
	ArgParser(const char *opt, const char *arg) : opt_(opt), arg_(arg) {}
	const std::string &error() const { return error_; }

	template <typename T>
	bool Number(uint64_t lo, uint64_t hi, T *out)
	{
		uint64_t v;
		if (!ParseNumber(arg_, 0, UINT64_MAX, &v)) {
			Fail("'" + std::string(arg_) + "' is not a number");
			return false;
		}
		if (v < lo || v > hi) {
			Fail(std::string(arg_) + " is out of range " + std::to_string(lo) + ".." +
			     std::to_string(hi));
			return false;
		}
		*out = static_cast<T>(v);
		return true;
	}

	// An RFC 8797 inline size: 1 KiB units, 1 KiB to 256 KiB.
	bool Size(const char *text, uint32_t *out)
	{
		uint64_t v;
		if (!ParseNumber(text, kMinInline, kMaxInline, &v) || v % 1024) {
			Fail("'" + std::string(text) + "' is not a multiple of 1024 in " +
			     std::to_string(kMinInline) + ".." + std::to_string(kMaxInline) +
			     " (RFC 8797 sizes are in 1 KiB units)");
			return false;
		}
		*out = static_cast<uint32_t>(v);
		return true;
	}

	bool PrivateData(std::vector<uint8_t> *out)
	{
		if (!ParseHex(arg_, out)) {
			Fail("'" + std::string(arg_) + "' is not an even number of hex digits");
			return false;
		}
		if (out->size() > kMaxPrivateData) {
			Fail(std::to_string(out->size()) +
			     " bytes of private data; rdma_cm carries at most 255 "
			     "(private_data_len is a u8), and less on most transports: "
			     "IB/RoCE connect 56, accept 196, reject 148; iWARP 248");
			return false;
		}
		return true;
	}

	// mpa-connect's: no rdma_cm in the way, only the MPA frame's limit.
	bool MpaPrivateData(std::vector<uint8_t> *out)
	{
		if (!ParseHex(arg_, out)) {
			Fail("'" + std::string(arg_) + "' is not an even number of hex digits");
			return false;
		}
		if (out->size() > kMaxMpaPrivateData) {
			Fail(std::to_string(out->size()) +
			     " bytes of private data; an MPA revision 2 request carries at "
			     "most 508 (RFC 5044's 512, less the 4 of IRD/ORD)");
			return false;
		}
		return true;
	}

	bool PortId(uint8_t out[16])
	{
		std::vector<uint8_t> v;
		if (!ParseHex(arg_, &v) || v.size() != 16) {
			Fail("'" + std::string(arg_) + "' is not 16 bytes (32 hex digits)");
			return false;
		}
		memcpy(out, v.data(), 16);
		return true;
	}

	// One of @words (a null-terminated list); *out is the value of its
	// enumerator, the word's index plus one (0 is each enum's kNone).
	template <typename T>
	bool Choice(const char *const *words, T *out)
	{
		std::string all;
		for (int i = 0; words[i]; i++) {
			if (!strcmp(arg_, words[i])) {
				*out = static_cast<T>(i + 1);
				return true;
			}
			all += std::string(i ? "|" : "") + words[i];
		}
		Fail("'" + std::string(arg_) + "' is not one of " + all);
		return false;
	}

	void Fail(const std::string &why) { error_ = std::string(opt_) + ": " + why; }

private:
	const char *opt_;
	const char *arg_;
	std::string error_;
};

bool ValidSrpExpect(std::string *e)
{
	if (*e == "accepted" || *e == "rejected")
		return true;
	const std::string prefix = "rejected:0x";
	if (e->compare(0, prefix.size(), prefix) || e->size() != prefix.size() + 8)
		return false;
	for (size_t i = prefix.size(); i < e->size(); i++) {
		if (!isxdigit(static_cast<unsigned char>((*e)[i])))
			return false;
		(*e)[i] = static_cast<char>(tolower(static_cast<unsigned char>((*e)[i])));
	}
	return true;
}

// Apply one option; false with *err set when its value is refused.
bool Apply(const CommandSpec &spec, int id, const char *name, const char *arg, Options *o,
	   bool *rpc_option, std::string *err)
{
	ArgParser p(name, arg);
	bool ok = true;
	// In the order of enum RpcError, RpcReject and RpcCorrupt after kNone.
	static const char *const kRpcErrors[] = {"vers", "chunk", nullptr};
	static const char *const kRpcRejects[] = {"prog", "progvers", "proc", "garbage",
						  "system", "rpcvers", "auth", nullptr};
	static const char *const kRpcCorrupts[] = {"short", "xid", "vers", nullptr};
	// In the order of enum MpaRtr.
	static const char *const kMpaRtrs[] = {"write", "read", "none", nullptr};

	switch (id) {
	case kOptAddr:
		o->addr = arg;
		break;
	case kOptPort:
		ok = p.Number(1, 65535, &o->port);
		break;
	case kOptTimeout:
		ok = p.Number(1, kMaxTimeoutS, &o->timeout_s);
		break;
	case kOptCmp: {
		std::string v(arg);
		size_t colon = v.find(':');
		if (colon == std::string::npos) {
			p.Fail("'" + v + "' is not SEND:RECV");
			ok = false;
			break;
		}
		std::string send = v.substr(0, colon), recv = v.substr(colon + 1);
		ok = p.Size(send.c_str(), &o->cmp_send) && p.Size(recv.c_str(), &o->cmp_recv);
		o->has_cmp = true;
		break;
	}
	case kOptReject:
		ok = p.PrivateData(&o->reject_pdata);
		o->reject = true;
		break;
	case kOptDisconnectAfter:
		ok = p.Number(0, kMaxDelayMs, &o->disconnect_after_ms);
		o->has_disconnect_after = true;
		break;
	case kOptRpc:
		o->rpc = true;
		break;
	case kOptCredits:
		if (spec.cmd == Command::kCall) {
			ok = p.Number(1, kMaxRing, &o->call_credits);
		} else {
			ok = p.Number(0, UINT32_MAX, &o->credits);
			*rpc_option = true;
		}
		break;
	case kOptRpcRecvs:
		ok = p.Number(1, kMaxRing, &o->rpc_recvs);
		*rpc_option = true;
		break;
	case kOptRpcError:
		ok = p.Choice(kRpcErrors, &o->rpc_error);
		*rpc_option = true;
		break;
	case kOptRpcReject:
		ok = p.Choice(kRpcRejects, &o->rpc_reject);
		*rpc_option = true;
		break;
	case kOptRpcCorrupt:
		ok = p.Choice(kRpcCorrupts, &o->rpc_corrupt);
		*rpc_option = true;
		break;
	case kOptRpcDrop:
		ok = p.Number(1, UINT32_MAX, &o->rpc_drop);
		*rpc_option = true;
		break;
	case kOptRpcDisconnectAt:
		ok = p.Number(1, UINT32_MAX, &o->rpc_disconnect_at);
		*rpc_option = true;
		break;
	case kOptRpcDelayMs:
		ok = p.Number(0, kMaxDelayMs, &o->rpc_delay_ms);
		*rpc_option = true;
		break;
	case kOptRpcBadXid:
		o->rpc_bad_xid = true;
		*rpc_option = true;
		break;
	case kOptRpcQuiet:
		o->rpc_quiet = true;
		*rpc_option = true;
		break;
	case kOptPdata:
		ok = spec.cmd == Command::kMpaConnect ? p.MpaPrivateData(&o->pdata)
						      : p.PrivateData(&o->pdata);
		break;
	case kOptExpect:
		o->expect = arg;
		if (spec.cmd == Command::kSrpLogin ? !ValidSrpExpect(&o->expect)
		    : o->expect != "established" && o->expect != "rejected" &&
			  o->expect != "unreachable" && o->expect != "error") {
			p.Fail("'" + o->expect + "' is not an outcome this command reports");
			ok = false;
		}
		break;
	case kOptIuLen:
		ok = p.Number(0, UINT32_MAX, &o->iu_len);
		break;
	case kOptBufFmt:
		ok = p.Number(0, UINT16_MAX, &o->buf_fmt);
		break;
	case kOptOpcode:
		ok = p.Number(0, UINT8_MAX, &o->opcode);
		break;
	case kOptInitiatorPortId:
		ok = p.PortId(o->initiator_port_id);
		o->has_initiator_port_id = true;
		break;
	case kOptTargetPortId:
		ok = p.PortId(o->target_port_id);
		o->has_target_port_id = true;
		break;
	case kOptCount:
		ok = p.Number(1, kMaxCount, &o->count);
		break;
	case kOptProgram:
		ok = p.Number(0, UINT32_MAX, &o->program);
		break;
	case kOptVersion:
		ok = p.Number(0, UINT32_MAX, &o->version);
		break;
	case kOptInlineSend:
		ok = p.Size(arg, &o->inline_send);
		break;
	case kOptInlineRecv:
		ok = p.Size(arg, &o->inline_recv);
		break;
	case kOptJsonLatencies:
		o->json_latencies = true;
		break;
	case kOptVerbose:
		o->verbose = true;
		break;
	case kOptRtr:
		ok = p.Choice(kMpaRtrs, &o->mpa_rtr);
		break;
	case kOptNoRtr:
		o->no_rtr = true;
		break;
	case kOptHoldMs:
		ok = p.Number(0, kMaxDelayMs, &o->hold_ms);
		break;
	case kOptBusyPoll:
		o->busy_poll = true;
		break;
	default:
		p.Fail("not handled");
		ok = false;
	}
	if (!ok)
		*err = p.error();
	return ok;
}

// What one command's options say together.
std::string CheckCombination(const CommandSpec &spec, const Options &o, bool rpc_option)
{
	if (o.addr.empty())
		return "--addr is required";
	if (!o.port)
		return "--port is required";
	if (spec.cmd == Command::kMpaConnect && o.no_rtr && o.mpa_rtr == MpaRtr::kNone)
		return "--no-rtr needs an RTR offered (--rtr write or read), not --rtr none";
	if (spec.cmd != Command::kServe)
		return "";
	if (o.reject && o.has_cmp)
		return "--reject and --cmp exclude each other (a reject carries one private data)";
	if (o.reject && o.has_disconnect_after)
		return "--disconnect-after needs an accepted connection, not --reject";
	if (o.reject && o.rpc)
		return "--rpc needs an accepted connection, not --reject";
	if (rpc_option && !o.rpc)
		return "--credits and --rpc-* need --rpc";
	if (o.rpc_error != RpcError::kNone && o.rpc_reject != RpcReject::kNone)
		return "--rpc-error and --rpc-reject exclude each other";
	return "";
}

} // namespace

bool ParseNumber(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	if (!s)
		return false;
	int base = 10;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (!*s)
		return false;
	for (const char *c = s; *c; c++)
		if (base == 16 ? !isxdigit(static_cast<unsigned char>(*c))
			       : !isdigit(static_cast<unsigned char>(*c)))
			return false;
	errno = 0;
	char *end = nullptr;
	unsigned long long v = strtoull(s, &end, base);
	if (errno == ERANGE || *end || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

bool ParseHex(const std::string &s, std::vector<uint8_t> *out)
{
	if (s.size() % 2)
		return false;
	out->clear();
	for (size_t i = 0; i < s.size(); i += 2) {
		char byte[3] = {s[i], s[i + 1], 0};
		if (!isxdigit(static_cast<unsigned char>(byte[0])) ||
		    !isxdigit(static_cast<unsigned char>(byte[1])))
			return false;
		out->push_back(static_cast<uint8_t>(strtoul(byte, nullptr, 16)));
	}
	return true;
}

std::string Hex(const std::vector<uint8_t> &v)
{
	static const char digits[] = "0123456789abcdef";
	std::string s;
	for (uint8_t b : v) {
		s += digits[b >> 4];
		s += digits[b & 15];
	}
	return s;
}

bool ParseAddress(const std::string &s, uint16_t port, sockaddr_storage *out)
{
	memset(out, 0, sizeof(*out));
	auto *sin = reinterpret_cast<sockaddr_in *>(out);
	auto *sin6 = reinterpret_cast<sockaddr_in6 *>(out);
	if (inet_pton(AF_INET, s.c_str(), &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		return true;
	}
	if (inet_pton(AF_INET6, s.c_str(), &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		return true;
	}
	return false;
}

size_t PrivateDataLimit(Transport t, CmOp op)
{
	switch (t) {
	case Transport::kIb:
		// IB CM message private data (ib_cm.h), the REQ's less the
		// 36-byte rdma_cm header (struct cma_hdr) of an IP-addressed id.
		return op == CmOp::kConnect ? 92 - 36 : op == CmOp::kAccept ? 196 : 148;
	case Transport::kIwarp:
		// siw takes at most RDMA_MAX_PRIVATE_DATA (256) bytes of MPA
		// private data, the 8 bytes of RFC 6581's IRD/ORD included when
		// it uses MPA revision 2 (its default).
		return 256 - 8;
	case Transport::kOther:
		break;
	}
	return kMaxPrivateData;
}

std::string PrivateDataLimitWhy(Transport t, CmOp op)
{
	switch (t) {
	case Transport::kIb:
		if (op == CmOp::kConnect)
			return "an IB/RoCE connect request (IB CM REQ) carries 92 bytes of "
			       "private data, 36 of them rdma_cm's own header";
		if (op == CmOp::kAccept)
			return "an IB/RoCE accept (IB CM REP) carries 196 bytes of private data";
		return "an IB/RoCE reject (IB CM REJ) carries 148 bytes of private data";
	case Transport::kIwarp:
		return "an iWARP MPA request/reply carries 256 bytes of private data in "
		       "siw (RFC 5044 allows 512), 8 of them the RFC 6581 IRD/ORD of "
		       "MPA revision 2";
	case Transport::kOther:
		break;
	}
	return "rdma_cm's private_data_len is a u8";
}

Options ServeOptionsFor(const Options &o, uint32_t i)
{
	Options c = o;

	if (i)
		c.rpc_disconnect_at = 0;
	return c;
}

ParseResult ParseArgs(int argc, char **argv, Options *o)
{
	*o = Options();
	if (argc < 2)
		return Error(nullptr, "no command");
	const std::string first = argv[1];
	if (first == "--help" || first == "-h" || first == "help") {
		if (argc > 2)
			return Error(nullptr, std::string("stray argument '") + argv[2] + "'");
		ParseResult r;
		r.status = ParseResult::kHelp;
		r.text = kMainHelp;
		return r;
	}
	const CommandSpec *spec = nullptr;
	for (const CommandSpec &c : kCommands)
		if (first == c.name)
			spec = &c;
	if (!spec)
		return Error(nullptr, "unknown command '" + first + "'");
	o->cmd = spec->cmd;

	// Subcommand options: argv[1] plays getopt's program name.  "+": stop at
	// the first non-option (no reordering); ":": report missing values.
	int sub_argc = argc - 1;
	char **sub_argv = argv + 1;
	bool rpc_option = false;
	optind = 0;	// glibc: reinitialize getopt completely
	opterr = 0;
	for (;;) {
		int longindex = -1;
		int c = getopt_long(sub_argc, sub_argv, "+:h", spec->opts, &longindex);
		if (c == -1)
			break;
		const char *current = sub_argv[optind - 1];
		if (c == '?') {
			const option *known = FindOption(spec->opts, current);
			if (known && known->has_arg == no_argument)
				return Error(spec, std::string("option '--") + known->name +
						   "' takes no value");
			if (optopt && optopt < 256)
				return Error(spec, std::string("unknown option '-") +
						   static_cast<char>(optopt) + "'");
			std::string matches = PrefixMatches(spec->opts, current);
			if (!matches.empty())
				return Error(spec, std::string("ambiguous option '") + current +
						   "' (" + matches + ")");
			return Error(spec, std::string("unknown option '") + current + "'");
		}
		if (c == ':')
			return Error(spec, std::string("option '") + current + "' needs a value");
		if (c == kOptHelp) {
			ParseResult r;
			r.status = ParseResult::kHelp;
			r.text = std::string(spec->usage) + spec->help;
			return r;
		}
		std::string name = std::string("--") + spec->opts[longindex].name;
		std::string err;
		if (!Apply(*spec, c, name.c_str(), optarg, o, &rpc_option, &err))
			return Error(spec, err);
	}
	if (optind < sub_argc)
		return Error(spec, std::string("stray argument '") + sub_argv[optind] + "'");
	std::string err = CheckCombination(*spec, *o, rpc_option);
	if (!err.empty())
		return Error(spec, err);
	if (!ParseAddress(o->addr, o->port, &o->sa))
		return Error(spec, "--addr: '" + o->addr + "' is not an IPv4 or IPv6 address");
	ParseResult r;
	r.status = ParseResult::kRun;
	return r;
}

} // namespace cmkit_peer
