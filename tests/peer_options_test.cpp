// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
//
// cmkit-peer's command line (tools/peer/options.cpp): range checks, unknown
// options, stray arguments, private data limits, help, and the command
// lines cmkit's guest scripts use.
#include <arpa/inet.h>
#include <netinet/in.h>

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "options.h"

using namespace cmkit_peer;

namespace {

// Parse a command line given as words (argv[0] "cmkit-peer" is added).
ParseResult Parse(const std::vector<std::string> &words, Options *o)
{
	std::vector<std::string> copy = {"cmkit-peer"};
	copy.insert(copy.end(), words.begin(), words.end());
	std::vector<char *> argv;
	for (std::string &w : copy)
		argv.push_back(&w[0]);
	argv.push_back(nullptr);
	return ParseArgs(static_cast<int>(copy.size()), argv.data(), o);
}

ParseResult Parse(const std::vector<std::string> &words)
{
	Options o;
	return Parse(words, &o);
}

std::vector<std::string> Serve(std::vector<std::string> more = {})
{
	std::vector<std::string> w = {"serve", "--addr", "10.77.0.1", "--port", "30001"};
	w.insert(w.end(), more.begin(), more.end());
	return w;
}

std::vector<std::string> MpaConnect(std::vector<std::string> more = {})
{
	std::vector<std::string> w = {"mpa-connect", "--addr", "10.83.0.1", "--port", "7010"};
	w.insert(w.end(), more.begin(), more.end());
	return w;
}

std::vector<std::string> Call(std::vector<std::string> more = {})
{
	std::vector<std::string> w = {"call", "--addr", "10.77.0.1", "--port", "30001"};
	w.insert(w.end(), more.begin(), more.end());
	return w;
}

// Refused with exit 2, a message naming @what, and a usage line.
void ExpectRefused(const std::vector<std::string> &words, const std::string &what)
{
	ParseResult r = Parse(words);
	EXPECT_EQ(r.status, ParseResult::kError) << r.text;
	EXPECT_EQ(r.ExitCode(), kExitUsage);
	EXPECT_NE(r.text.find(what), std::string::npos) << r.text;
	EXPECT_NE(r.text.find("usage: cmkit-peer"), std::string::npos) << r.text;
}

std::string Hex(size_t bytes)
{
	return std::string(2 * bytes, 'a');
}

} // namespace

TEST(PeerNumber, AcceptsDecimalAndHexWithinRange)
{
	uint64_t v = 0;
	EXPECT_TRUE(ParseNumber("1", 1, 65535, &v));
	EXPECT_EQ(v, 1U);
	EXPECT_TRUE(ParseNumber("65535", 1, 65535, &v));
	EXPECT_EQ(v, 65535U);
	EXPECT_TRUE(ParseNumber("0x10", 0, 100, &v));
	EXPECT_EQ(v, 16U);
	EXPECT_TRUE(ParseNumber("010", 0, 100, &v));	// decimal, never octal
	EXPECT_EQ(v, 10U);
	EXPECT_TRUE(ParseNumber("18446744073709551615", 0, UINT64_MAX, &v));
	EXPECT_EQ(v, UINT64_MAX);
}

TEST(PeerNumber, RefusesWhatStrtoulWouldBend)
{
	uint64_t v = 7;
	for (const char *bad : {"", "0", "65536", "-1", "+1", " 1", "1 ", "12x", "0x", "0x0x1",
				"1e3", "18446744073709551616", "99999999999999999999999"})
		EXPECT_FALSE(ParseNumber(bad, 1, 65535, &v)) << "'" << bad << "'";
	EXPECT_FALSE(ParseNumber(nullptr, 0, 1, &v));
	EXPECT_EQ(v, 7U) << "a refused number must not be stored";
}

TEST(PeerHex, EvenDigitsOnly)
{
	std::vector<uint8_t> v;
	EXPECT_TRUE(ParseHex("", &v));
	EXPECT_TRUE(v.empty());
	EXPECT_TRUE(ParseHex("00aBfF", &v));
	EXPECT_EQ(v, (std::vector<uint8_t>{0x00, 0xab, 0xff}));
	EXPECT_FALSE(ParseHex("abc", &v));
	EXPECT_FALSE(ParseHex("zz", &v));
	EXPECT_FALSE(ParseHex("0x", &v));
	EXPECT_FALSE(ParseHex("-1", &v));
}

TEST(PeerOptions, ServeWithAddressAndPort)
{
	Options o;
	ParseResult r = Parse(Serve(), &o);
	ASSERT_EQ(r.status, ParseResult::kRun) << r.text;
	EXPECT_EQ(o.cmd, Command::kServe);
	EXPECT_EQ(o.port, 30001);
	EXPECT_EQ(o.timeout_s, 30U);
	const auto *sin = reinterpret_cast<const sockaddr_in *>(&o.sa);
	EXPECT_EQ(sin->sin_family, AF_INET);
	EXPECT_EQ(ntohs(sin->sin_port), 30001);
	EXPECT_EQ(ntohl(sin->sin_addr.s_addr), 0x0a4d0001U);
	EXPECT_FALSE(o.rpc);
	EXPECT_FALSE(o.has_cmp);
}

TEST(PeerOptions, Ipv6Address)
{
	Options o;
	ParseResult r = Parse({"connect", "--addr", "fe80::1", "--port", "7"}, &o);
	ASSERT_EQ(r.status, ParseResult::kRun) << r.text;
	const auto *sin6 = reinterpret_cast<const sockaddr_in6 *>(&o.sa);
	EXPECT_EQ(sin6->sin6_family, AF_INET6);
	EXPECT_EQ(ntohs(sin6->sin6_port), 7);
}

TEST(PeerOptions, PortOutOfRangeRefused)
{
	ExpectRefused({"serve", "--addr", "10.77.0.1", "--port", "0"}, "--port: 0 is out of range 1..65535");
	ExpectRefused({"serve", "--addr", "10.77.0.1", "--port", "65536"}, "out of range 1..65535");
	ExpectRefused({"serve", "--addr", "10.77.0.1", "--port", "-1"}, "'-1' is not a number");
	ExpectRefused({"serve", "--addr", "10.77.0.1", "--port", "30001x"}, "is not a number");
	ExpectRefused({"serve", "--addr", "10.77.0.1", "--port", ""}, "is not a number");
}

TEST(PeerOptions, TimeoutMustBePositiveAndBounded)
{
	ExpectRefused(Serve({"--timeout", "0"}), "--timeout: 0 is out of range 1..86400");
	ExpectRefused(Serve({"--timeout", "86401"}), "--timeout");
	Options o;
	ASSERT_EQ(Parse(Serve({"--timeout", "86400"}), &o).status, ParseResult::kRun);
	EXPECT_EQ(o.timeout_s, 86400U);
}

TEST(PeerOptions, RequiredOptionsAndBadAddress)
{
	ExpectRefused({"serve", "--port", "1"}, "--addr is required");
	ExpectRefused({"call", "--addr", "10.77.0.1"}, "--port is required");
	ExpectRefused({"connect", "--addr", "10.77.0", "--port", "1"}, "not an IPv4 or IPv6");
	ExpectRefused({"connect", "--addr", "rxe0", "--port", "1"}, "not an IPv4 or IPv6");
}

TEST(PeerOptions, UnknownOptionsRefused)
{
	ExpectRefused(Serve({"--bogus"}), "unknown option '--bogus'");
	ExpectRefused(Serve({"--bogus=1"}), "unknown option '--bogus=1'");
	ExpectRefused(Serve({"-x"}), "unknown option '-x'");
	// Options of another command are unknown here.
	ExpectRefused(Serve({"--program", "3"}), "unknown option '--program'");
	ExpectRefused(MpaConnect({"--rpc"}), "unknown option '--rpc'");
	ExpectRefused(MpaConnect({"--expect", "established"}), "unknown option '--expect'");
	ExpectRefused(Call({"--rpc"}), "unknown option '--rpc'");
	ExpectRefused({"connect", "--addr", "10.77.0.1", "--port", "1", "--iu-len", "5"},
		      "unknown option '--iu-len'");
}

TEST(PeerOptions, StrayArgumentsRefused)
{
	ExpectRefused(Serve({"extra"}), "stray argument 'extra'");
	ExpectRefused({"serve", "extra", "--addr", "10.77.0.1", "--port", "1"},
		      "stray argument 'extra'");
	ExpectRefused(Serve({"--", "--timeout", "5"}), "stray argument '--timeout'");
	ExpectRefused(Serve({"-"}), "stray argument '-'");
	// The old key-value syntax's mistakes: a value without an option.
	ExpectRefused(Serve({"--timeout", "5", "6"}), "stray argument '6'");
}

TEST(PeerOptions, MissingAndUnwantedValues)
{
	ExpectRefused({"serve", "--addr", "10.77.0.1", "--port"}, "option '--port' needs a value");
	ExpectRefused(Serve({"--rpc=yes"}), "option '--rpc' takes no value");
	ExpectRefused(Call({"--json-latencies=1"}), "takes no value");
}

TEST(PeerOptions, AbbreviationsUniqueOnly)
{
	Options o;
	ASSERT_EQ(Parse(Serve({"--rpc", "--cred", "5"}), &o).status, ParseResult::kRun);
	EXPECT_EQ(o.credits, 5U);
	ExpectRefused(Serve({"--rpc", "--rpc-d", "3"}),
		      "ambiguous option '--rpc-d' (--rpc-drop, --rpc-disconnect-at, --rpc-delay-ms)");
}

TEST(PeerOptions, CommandsAndHelp)
{
	ExpectRefused({}, "no command");
	ExpectRefused({"frobnicate"}, "unknown command 'frobnicate'");
	ExpectRefused({"--help", "serve"}, "stray argument 'serve'");
	for (const char *h : {"--help", "-h", "help"}) {
		ParseResult r = Parse({h});
		EXPECT_EQ(r.status, ParseResult::kHelp);
		EXPECT_EQ(r.ExitCode(), kExitOk);
		for (const char *cmd : {"serve", "connect", "srp-login", "call", "mpa-connect"})
			EXPECT_NE(r.text.find(cmd), std::string::npos) << cmd;
	}
	// Each command's help names each of its options, and needs no others.
	const std::vector<std::pair<std::string, std::vector<std::string>>> helps = {
		{"serve", {"--cmp", "--reject", "--disconnect-after", "--count", "--rpc", "--credits",
			   "--rpc-recvs", "--rpc-error", "--rpc-reject", "--rpc-corrupt",
			   "--rpc-drop", "--rpc-disconnect-at", "--rpc-delay-ms", "--rpc-bad-xid",
			   "--rpc-quiet", "--timeout", "Exit status"}},
		{"connect", {"--pdata", "--expect", "--timeout", "Exit status"}},
		{"srp-login", {"--iu-len", "--buf-fmt", "--opcode", "--initiator-port-id",
			       "--target-port-id", "--expect", "Exit status"}},
		{"call", {"--count", "--program", "--version", "--credits", "--inline-send",
			  "--inline-recv", "--json-latencies", "--verbose", "Exit status"}},
		{"mpa-connect", {"--rtr", "--no-rtr", "--count", "--hold-ms", "--busy-poll", "--pdata",
				 "--timeout", "Exit status"}},
	};
	for (const auto &h : helps) {
		ParseResult r = Parse({h.first, "--help"});
		EXPECT_EQ(r.status, ParseResult::kHelp) << h.first;
		EXPECT_EQ(r.ExitCode(), kExitOk);
		for (const std::string &opt : h.second)
			EXPECT_NE(r.text.find(opt), std::string::npos) << h.first << " " << opt;
		EXPECT_EQ(Parse({h.first, "-h"}).status, ParseResult::kHelp);
	}
}

TEST(PeerOptions, PrivateDataOverTheU8Refused)
{
	Options o;
	ASSERT_EQ(Parse({"connect", "--addr", "10.77.0.1", "--port", "1", "--pdata", Hex(255)}, &o)
			  .status,
		  ParseResult::kRun);
	EXPECT_EQ(o.pdata.size(), 255U);
	ExpectRefused({"connect", "--addr", "10.77.0.1", "--port", "1", "--pdata", Hex(256)},
		      "--pdata: 256 bytes of private data; rdma_cm carries at most 255");
	ExpectRefused(Serve({"--reject", Hex(300)}), "--reject: 300 bytes");
	ExpectRefused(Serve({"--reject", "abc"}), "not an even number of hex digits");
	ExpectRefused({"connect", "--addr", "10.77.0.1", "--port", "1", "--pdata", "xy"},
		      "not an even number of hex digits");
}

TEST(PeerOptions, PrivateDataLimitPerTransport)
{
	// IB CM: REQ 92 less rdma_cm's 36-byte header, REP 196, REJ 148.
	EXPECT_EQ(PrivateDataLimit(Transport::kIb, CmOp::kConnect), 56U);
	EXPECT_EQ(PrivateDataLimit(Transport::kIb, CmOp::kAccept), 196U);
	EXPECT_EQ(PrivateDataLimit(Transport::kIb, CmOp::kReject), 148U);
	// siw: 256 bytes of MPA private data, 8 of them MPA v2's IRD/ORD.
	for (CmOp op : {CmOp::kConnect, CmOp::kAccept, CmOp::kReject}) {
		EXPECT_EQ(PrivateDataLimit(Transport::kIwarp, op), 248U);
		EXPECT_EQ(PrivateDataLimit(Transport::kOther, op), 255U);
		for (Transport t : {Transport::kIb, Transport::kIwarp, Transport::kOther}) {
			EXPECT_LE(PrivateDataLimit(t, op), kMaxPrivateData);
			EXPECT_FALSE(PrivateDataLimitWhy(t, op).empty());
		}
	}
	EXPECT_NE(PrivateDataLimitWhy(Transport::kIb, CmOp::kConnect).find("36"), std::string::npos);
	// What the peer sends itself always fits: an SRP login (56) and an
	// RFC 8797 message (8) on IB, the tightest.
	EXPECT_LE(56U, PrivateDataLimit(Transport::kIb, CmOp::kConnect));
}

TEST(PeerOptions, RpcSizesAreRfc8797Units)
{
	Options o;
	ASSERT_EQ(Parse(Serve({"--cmp", "2048:3072"}), &o).status, ParseResult::kRun);
	EXPECT_TRUE(o.has_cmp);
	EXPECT_EQ(o.cmp_send, 2048U);
	EXPECT_EQ(o.cmp_recv, 3072U);
	ASSERT_EQ(Parse(Serve({"--cmp", "262144:1024"}), &o).status, ParseResult::kRun);
	ExpectRefused(Serve({"--cmp", "1000:2048"}), "'1000' is not a multiple of 1024");
	ExpectRefused(Serve({"--cmp", "2048:263168"}), "'263168' is not a multiple of 1024 in 1024..262144");
	ExpectRefused(Serve({"--cmp", "2048"}), "is not SEND:RECV");
	ExpectRefused(Serve({"--cmp", "2048:"}), "'' is not a multiple");
	ExpectRefused(Call({"--inline-send", "1536"}), "--inline-send: '1536'");
	ExpectRefused(Call({"--inline-recv", "0"}), "--inline-recv");
}

TEST(PeerOptions, ServeDisconnectsOnlyItsFirstConnection)
{
	Options o;
	ASSERT_EQ(Parse(Serve({"--rpc", "--count", "2", "--rpc-disconnect-at", "4", "--rpc-drop",
			       "2"}),
			&o).status,
		  ParseResult::kRun);
	EXPECT_EQ(ServeOptionsFor(o, 0).rpc_disconnect_at, 4U);
	EXPECT_EQ(ServeOptionsFor(o, 1).rpc_disconnect_at, 0U);
	// Every other knob holds for every connection.
	EXPECT_EQ(ServeOptionsFor(o, 1).rpc_drop, 2U);
	EXPECT_EQ(ServeOptionsFor(o, 1).count, 2U);
	EXPECT_TRUE(ServeOptionsFor(o, 1).rpc);
}

TEST(PeerOptions, ServeRpcKnobs)
{
	Options o;
	ASSERT_EQ(Parse(Serve({"--rpc"}), &o).status, ParseResult::kRun);
	EXPECT_TRUE(o.rpc);
	EXPECT_EQ(o.credits, 32U);
	EXPECT_EQ(o.rpc_error, RpcError::kNone);
	EXPECT_EQ(o.rpc_reject, RpcReject::kNone);

	ASSERT_EQ(Parse(Serve({"--rpc", "--credits", "0", "--rpc-error", "chunk", "--rpc-drop", "3",
			       "--rpc-bad-xid", "--rpc-delay-ms", "250", "--rpc-recvs", "16384",
			       "--rpc-corrupt", "xid", "--rpc-disconnect-at", "7", "--rpc-quiet"}),
			&o).status,
		  ParseResult::kRun);
	EXPECT_EQ(o.credits, 0U);
	EXPECT_EQ(o.rpc_error, RpcError::kChunk);
	EXPECT_EQ(o.rpc_drop, 3U);
	EXPECT_TRUE(o.rpc_bad_xid);
	EXPECT_EQ(o.rpc_delay_ms, 250U);
	EXPECT_EQ(o.rpc_recvs, 16384U);
	EXPECT_EQ(o.rpc_corrupt, RpcCorrupt::kXid);
	EXPECT_EQ(o.rpc_disconnect_at, 7U);
	EXPECT_TRUE(o.rpc_quiet);

	ASSERT_EQ(Parse(Serve({"--rpc", "--credits", "4294967295"}), &o).status, ParseResult::kRun);
	EXPECT_EQ(o.credits, 4294967295U);
	ExpectRefused(Serve({"--rpc", "--credits", "4294967296"}), "--credits: 4294967296 is out of range");

	const std::vector<std::pair<std::string, RpcReject>> rejects = {
		{"prog", RpcReject::kProg}, {"progvers", RpcReject::kProgVers},
		{"proc", RpcReject::kProc}, {"garbage", RpcReject::kGarbage},
		{"system", RpcReject::kSystem}, {"rpcvers", RpcReject::kRpcVers},
		{"auth", RpcReject::kAuth}};
	for (const auto &r : rejects) {
		ASSERT_EQ(Parse(Serve({"--rpc", "--rpc-reject", r.first}), &o).status, ParseResult::kRun);
		EXPECT_EQ(o.rpc_reject, r.second) << r.first;
	}
	ASSERT_EQ(Parse(Serve({"--rpc", "--rpc-error", "vers"}), &o).status, ParseResult::kRun);
	EXPECT_EQ(o.rpc_error, RpcError::kVers);
	ASSERT_EQ(Parse(Serve({"--rpc", "--rpc-corrupt", "short"}), &o).status, ParseResult::kRun);
	EXPECT_EQ(o.rpc_corrupt, RpcCorrupt::kShort);
	ASSERT_EQ(Parse(Serve({"--rpc", "--rpc-corrupt", "vers"}), &o).status, ParseResult::kRun);
	EXPECT_EQ(o.rpc_corrupt, RpcCorrupt::kVers);

	ExpectRefused(Serve({"--rpc", "--rpc-error", "none"}), "'none' is not one of vers|chunk");
	ExpectRefused(Serve({"--rpc", "--rpc-reject", "PROG"}), "is not one of prog|progvers|");
	ExpectRefused(Serve({"--rpc", "--rpc-drop", "0"}), "--rpc-drop: 0 is out of range");
	ExpectRefused(Serve({"--rpc", "--rpc-recvs", "0"}), "--rpc-recvs: 0 is out of range 1..16384");
	ExpectRefused(Serve({"--rpc", "--rpc-recvs", "16385"}), "--rpc-recvs");
	ExpectRefused(Serve({"--rpc", "--rpc-delay-ms", "3600001"}), "--rpc-delay-ms");
}

TEST(PeerOptions, ServeCombinationsRefused)
{
	ExpectRefused(Serve({"--credits", "4"}), "need --rpc");
	ExpectRefused(Serve({"--rpc-bad-xid"}), "need --rpc");
	ExpectRefused(Serve({"--rpc", "--rpc-error", "vers", "--rpc-reject", "prog"}),
		      "--rpc-error and --rpc-reject exclude each other");
	ExpectRefused(Serve({"--reject", "01", "--cmp", "1024:1024"}), "exclude each other");
	ExpectRefused(Serve({"--reject", "01", "--rpc"}), "--rpc needs an accepted connection");
	ExpectRefused(Serve({"--reject", "01", "--disconnect-after", "5"}), "--disconnect-after");
	ExpectRefused(Serve({"--disconnect-after", "3600001"}), "--disconnect-after");
}

TEST(PeerOptions, CallDefaultsAndBounds)
{
	Options o;
	ASSERT_EQ(Parse(Call(), &o).status, ParseResult::kRun);
	EXPECT_EQ(o.cmd, Command::kCall);
	EXPECT_EQ(o.count, 1U);
	EXPECT_EQ(o.program, 100003U);
	EXPECT_EQ(o.version, 3U);
	EXPECT_EQ(o.call_credits, 32U);
	EXPECT_EQ(o.inline_send, 1024U);
	EXPECT_EQ(o.inline_recv, 1024U);
	EXPECT_FALSE(o.json_latencies);

	ASSERT_EQ(Parse(Call({"--count", "10000000", "--program", "0x186a3", "--version", "4",
			      "--credits", "16384", "--inline-send", "4096", "--inline-recv",
			      "262144", "--json-latencies", "--verbose"}),
			&o).status,
		  ParseResult::kRun);
	EXPECT_EQ(o.count, 10000000U);
	EXPECT_EQ(o.program, 100003U);
	EXPECT_EQ(o.version, 4U);
	EXPECT_EQ(o.call_credits, 16384U);
	EXPECT_EQ(o.inline_send, 4096U);
	EXPECT_EQ(o.inline_recv, 262144U);
	EXPECT_TRUE(o.json_latencies);
	EXPECT_TRUE(o.verbose);

	ExpectRefused(Call({"--count", "0"}), "--count: 0 is out of range 1..10000000");
	ExpectRefused(Call({"--count", "10000001"}), "--count");
	ExpectRefused(Call({"--credits", "0"}), "--credits: 0 is out of range 1..16384");
	ExpectRefused(Call({"--credits", "16385"}), "--credits");
	ExpectRefused(Call({"--program", "4294967296"}), "--program");
}

TEST(PeerOptions, SrpLoginValues)
{
	Options o;
	ASSERT_EQ(Parse({"srp-login", "--addr", "10.77.0.1", "--port", "5555", "--expect",
			 "rejected:0x0001000A", "--iu-len", "4294967295", "--buf-fmt", "65535",
			 "--opcode", "255", "--target-port-id", std::string(30, '0') + "ff"},
			&o).status,
		  ParseResult::kRun);
	EXPECT_EQ(o.expect, "rejected:0x0001000a");	// compared in lower case
	EXPECT_EQ(o.iu_len, 4294967295U);
	EXPECT_EQ(o.buf_fmt, 65535);
	EXPECT_EQ(o.opcode, 255);
	EXPECT_TRUE(o.has_target_port_id);
	EXPECT_EQ(o.target_port_id[15], 0xff);
	EXPECT_FALSE(o.has_initiator_port_id);

	const std::vector<std::string> base = {"srp-login", "--addr", "10.77.0.1", "--port", "1"};
	auto with = [&base](std::vector<std::string> more) {
		std::vector<std::string> w = base;
		w.insert(w.end(), more.begin(), more.end());
		return w;
	};
	ExpectRefused(with({"--opcode", "256"}), "--opcode: 256 is out of range 0..255");
	ExpectRefused(with({"--buf-fmt", "65536"}), "--buf-fmt");
	ExpectRefused(with({"--iu-len", "4294967296"}), "--iu-len");
	ExpectRefused(with({"--expect", "rejected:0x123"}), "--expect");
	ExpectRefused(with({"--expect", "established"}), "--expect");
	ExpectRefused(with({"--initiator-port-id", std::string(30, '0')}), "16 bytes");
	ExpectRefused({"connect", "--addr", "10.77.0.1", "--port", "1", "--expect", "accepted"},
		      "--expect: 'accepted'");
}

TEST(PeerOptions, ServeCount)
{
	Options o;
	ASSERT_EQ(Parse(Serve(), &o).status, ParseResult::kRun);
	EXPECT_EQ(o.count, 1U);
	ASSERT_EQ(Parse(Serve({"--count", "50", "--disconnect-after", "0"}), &o).status,
		  ParseResult::kRun);
	EXPECT_EQ(o.count, 50U);
	EXPECT_TRUE(o.has_disconnect_after);
	EXPECT_EQ(o.disconnect_after_ms, 0U);
	ASSERT_EQ(Parse(Serve({"--count", "3", "--reject", "01"}), &o).status, ParseResult::kRun);
	ASSERT_EQ(Parse(Serve({"--count", "3", "--rpc"}), &o).status, ParseResult::kRun);
	ExpectRefused(Serve({"--count", "0"}), "--count: 0 is out of range 1..10000000");
	ExpectRefused(Serve({"--count", "10000001"}), "--count");
}

TEST(PeerOptions, MpaConnectDefaults)
{
	Options o;
	ASSERT_EQ(Parse(MpaConnect(), &o).status, ParseResult::kRun);
	EXPECT_EQ(o.cmd, Command::kMpaConnect);
	EXPECT_EQ(o.mpa_rtr, MpaRtr::kWrite);
	EXPECT_FALSE(o.no_rtr);
	EXPECT_FALSE(o.busy_poll);
	EXPECT_EQ(o.count, 1U);
	EXPECT_EQ(o.hold_ms, 2000U);
	EXPECT_EQ(o.timeout_s, 30U);
	EXPECT_TRUE(o.pdata.empty());
	const auto *sin = reinterpret_cast<const sockaddr_in *>(&o.sa);
	EXPECT_EQ(sin->sin_family, AF_INET);
	EXPECT_EQ(ntohs(sin->sin_port), 7010);
	EXPECT_EQ(ntohl(sin->sin_addr.s_addr), 0x0a530001U);
}

TEST(PeerOptions, MpaConnectValues)
{
	Options o;
	ASSERT_EQ(Parse(MpaConnect({"--rtr", "read", "--no-rtr", "--count", "10000000",
				    "--hold-ms", "3600000", "--pdata", Hex(508), "--timeout", "5",
				    "--busy-poll"}),
			&o).status,
		  ParseResult::kRun);
	EXPECT_EQ(o.mpa_rtr, MpaRtr::kRead);
	EXPECT_TRUE(o.no_rtr);
	EXPECT_EQ(o.count, 10000000U);
	EXPECT_EQ(o.hold_ms, 3600000U);
	EXPECT_EQ(o.pdata.size(), 508U);
	EXPECT_EQ(o.timeout_s, 5U);
	EXPECT_TRUE(o.busy_poll);
	ASSERT_EQ(Parse(MpaConnect({"--rtr", "none", "--hold-ms", "0"}), &o).status,
		  ParseResult::kRun);
	EXPECT_EQ(o.mpa_rtr, MpaRtr::kNone);
	EXPECT_EQ(o.hold_ms, 0U);
	ASSERT_EQ(Parse(MpaConnect({"--rtr=write", "--hold=7"}), &o).status, ParseResult::kRun);
	EXPECT_EQ(o.mpa_rtr, MpaRtr::kWrite);
	EXPECT_EQ(o.hold_ms, 7U);
	ASSERT_EQ(Parse({"mpa-connect", "--addr", "fe80::1", "--port", "1"}, &o).status,
		  ParseResult::kRun);
	EXPECT_EQ(reinterpret_cast<const sockaddr_in6 *>(&o.sa)->sin6_family, AF_INET6);
}

TEST(PeerOptions, MpaConnectRefusals)
{
	ExpectRefused(MpaConnect({"--rtr", "send"}), "--rtr: 'send' is not one of write|read|none");
	ExpectRefused(MpaConnect({"--rtr", "WRITE"}), "is not one of write|read|none");
	ExpectRefused(MpaConnect({"--rtr", "none", "--no-rtr"}),
		      "--no-rtr needs an RTR offered (--rtr write or read)");
	ExpectRefused(MpaConnect({"--no-rtr=1"}), "option '--no-rtr' takes no value");
	ExpectRefused(MpaConnect({"--busy-poll=1"}), "option '--busy-poll' takes no value");
	ExpectRefused(MpaConnect({"--rtr"}), "option '--rtr' needs a value");
	ExpectRefused(MpaConnect({"--count", "0"}), "--count: 0 is out of range 1..10000000");
	ExpectRefused(MpaConnect({"--hold-ms", "3600001"}),
		      "--hold-ms: 3600001 is out of range 0..3600000");
	ExpectRefused(MpaConnect({"--hold-ms", "-1"}), "--hold-ms: '-1' is not a number");
	ExpectRefused(MpaConnect({"--timeout", "0"}), "--timeout");
	ExpectRefused(MpaConnect({"--pdata", Hex(509)}),
		      "--pdata: 509 bytes of private data; an MPA revision 2 request carries at "
		      "most 508");
	ExpectRefused(MpaConnect({"--pdata", "abc"}), "not an even number of hex digits");
	ExpectRefused(MpaConnect({"extra"}), "stray argument 'extra'");
	ExpectRefused({"mpa-connect", "--port", "7010"}, "--addr is required");
	ExpectRefused({"mpa-connect", "--addr", "10.83.0.1"}, "--port is required");
	ExpectRefused(MpaConnect({"--h", "1"}), "ambiguous option '--h' (--help, --hold-ms)");
	// connect's rdma_cm limit is not mpa-connect's, nor the other way round.
	ExpectRefused({"connect", "--addr", "10.77.0.1", "--port", "1", "--pdata", Hex(256)},
		      "rdma_cm carries at most 255");
}

// Every cmkit-peer command line of scripts/guest/userspace.sh and story.sh
// (and of kernel-patches/repro/) still parses as it did.
TEST(PeerOptions, GuestScriptCommandLinesParse)
{
	const std::string tpid(32, '1');
	const std::string ipid = "00000000000000010000000000000001";
	const std::vector<std::vector<std::string>> lines = {
		Serve({"--cmp", "2048:3072", "--timeout", "60"}),
		Serve({"--timeout", "60"}),
		Serve({"--reject", "706565722d72656a65637473", "--timeout", "60"}),
		Serve({"--disconnect-after", "500"}),
		{"connect", "--addr", "10.77.1.1", "--port", "30007", "--pdata",
		 "636d6b69742d706565722d68656c6c6f", "--expect", "established", "--timeout", "30"},
		{"connect", "--addr", "10.77.1.1", "--port", "30007", "--pdata", "0a0b", "--expect",
		 "rejected"},
		{"srp-login", "--addr", "10.77.0.1", "--port", "5555", "--initiator-port-id", ipid,
		 "--expect", "accepted", "--timeout", "30", "--target-port-id", tpid},
		{"srp-login", "--addr", "10.77.0.1", "--port", "5555", "--initiator-port-id", ipid,
		 "--expect", "rejected:0x00010000", "--timeout", "30", "--target-port-id", tpid,
		 "--opcode", "1"},
		{"srp-login", "--addr", "10.77.0.1", "--port", "5555", "--target-port-id", tpid,
		 "--iu-len", "32", "--expect", "rejected:0x00010002"},
		{"srp-login", "--addr", "10.77.0.1", "--port", "5555", "--iu-len", "1048576",
		 "--buf-fmt", "8"},
		// kernel-patches/repro/ki-10.sh
		{"serve", "--addr", "10.83.0.1", "--port", "7010", "--count", "50",
		 "--disconnect-after", "0", "--timeout", "60"},
		{"mpa-connect", "--addr", "10.83.0.1", "--port", "7010", "--count", "5", "--hold-ms",
		 "5000", "--busy-poll", "--timeout", "10"},
	};
	for (const auto &l : lines) {
		ParseResult r = Parse(l);
		EXPECT_EQ(r.status, ParseResult::kRun) << l[0] << ": " << r.text;
	}
}

// getopt keeps global state; each parse must start afresh.
TEST(PeerOptions, ParsesAgainAfterAnError)
{
	ExpectRefused(Serve({"--bogus"}), "unknown option");
	Options o;
	ASSERT_EQ(Parse(Call({"--count", "5"}), &o).status, ParseResult::kRun);
	EXPECT_EQ(o.count, 5U);
	ASSERT_EQ(Parse(Call(), &o).status, ParseResult::kRun);
	EXPECT_EQ(o.count, 1U) << "options must not leak from the previous parse";
}
