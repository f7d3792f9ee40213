// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
//
// cmkit-peer mpa-connect's wire side (tools/peer/mpa_wire.cpp): the request
// and RTR bytes it sends, compared with bytes written here by hand from
// RFC 5044, RFC 6581 and siw's RTR (the same bytes kernel-patches/repro's
// printf requests spell out); how it reads a reply and what it decides on
// siw's; its JSON line.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "mpa_wire.h"
#include "options.h"

using namespace cmkit_peer;

namespace {

using Bytes = std::vector<uint8_t>;

const char kReqKey[] = "MPA ID Req Frame";
const char kRepKey[] = "MPA ID Rep Frame";

Bytes Frame(const char *key, Bytes rest)
{
	Bytes b(key, key + 16);
	b.insert(b.end(), rest.begin(), rest.end());
	return b;
}

// Options of `cmkit-peer mpa-connect --addr 10.83.0.1 --port 7010` plus @more.
Options Parsed(std::vector<std::string> more = {})
{
	std::vector<std::string> w = {"cmkit-peer", "mpa-connect", "--addr", "10.83.0.1",
				      "--port", "7010"};
	w.insert(w.end(), more.begin(), more.end());
	std::vector<char *> argv;
	for (std::string &s : w)
		argv.push_back(&s[0]);
	argv.push_back(nullptr);
	Options o;
	ParseResult r = ParseArgs(static_cast<int>(w.size()), argv.data(), &o);
	EXPECT_EQ(r.status, ParseResult::kRun) << r.text;
	return o;
}

// siw's reply to a P2P request offering a Write RTR, accepted by an
// rdma_cm server with responder_resources 1 (as cmkit-peer serve): flags
// 0x10, revision 2, IRD 4 (relaxed IRD: the initiator's ORD) with P2P,
// ORD 1 with the Write RTR it picked.
const Bytes kSiwReply = Frame(kRepKey, {0x10, 0x02, 0x00, 0x04, 0x80, 0x04, 0x80, 0x01});

} // namespace

TEST(PeerMpa, WriteRtrRequestBytes)
{
	Bytes req;
	ASSERT_TRUE(MpaRequest(Parsed(), &req));
	// "MPA ID Req Frame", flags 0x10 (enhanced), revision 2, PD_Length 4,
	// IRD word 0x8004 (P2P + 4), ORD word 0x8004 (Write RTR + 4).
	EXPECT_EQ(req, Frame(kReqKey, {0x10, 0x02, 0x00, 0x04, 0x80, 0x04, 0x80, 0x04}));
	// The bytes of ki-9.sh's printf request, octal escapes and all.
	const char ki9[] = "MPA ID Req Frame\020\002\000\004\200\004\200\004";
	EXPECT_EQ(req, Bytes(ki9, ki9 + sizeof(ki9) - 1));
}

TEST(PeerMpa, ReadAndNoRtrRequestBytes)
{
	Bytes req;
	ASSERT_TRUE(MpaRequest(Parsed({"--rtr", "read"}), &req));
	EXPECT_EQ(req, Frame(kReqKey, {0x10, 0x02, 0x00, 0x04, 0x80, 0x04, 0x40, 0x04}));
	// No peer-to-peer: neither A nor C/D, IRD and ORD still 4.
	ASSERT_TRUE(MpaRequest(Parsed({"--rtr", "none"}), &req));
	EXPECT_EQ(req, Frame(kReqKey, {0x10, 0x02, 0x00, 0x04, 0x00, 0x04, 0x00, 0x04}));
	// --no-rtr changes what is sent after the reply, not the request.
	Bytes with_no_rtr;
	ASSERT_TRUE(MpaRequest(Parsed({"--no-rtr"}), &with_no_rtr));
	Bytes plain;
	ASSERT_TRUE(MpaRequest(Parsed(), &plain));
	EXPECT_EQ(with_no_rtr, plain);
}

TEST(PeerMpa, RequestCarriesPrivateDataAfterIrdOrd)
{
	Bytes req;
	ASSERT_TRUE(MpaRequest(Parsed({"--pdata", "0a0b0c"}), &req));
	EXPECT_EQ(req, Frame(kReqKey, {0x10, 0x02, 0x00, 0x07, 0x80, 0x04, 0x80, 0x04, 0x0a, 0x0b,
				       0x0c}));
	// The most a revision 2 request carries: 508 bytes, PD_Length 512.
	ASSERT_TRUE(MpaRequest(Parsed({"--pdata", std::string(2 * 508, 'f')}), &req));
	ASSERT_EQ(req.size(), 20U + 512U);
	EXPECT_EQ(req[18], 0x02);
	EXPECT_EQ(req[19], 0x00);
	EXPECT_EQ(req.back(), 0xff);
}

TEST(PeerMpa, OfferFollowsRtrOption)
{
	cmkit_mpa_offer me = MpaOffer(Parsed());
	EXPECT_EQ(me.rev, CMKIT_MPA_REV2);
	EXPECT_EQ(me.crc, 0);
	EXPECT_EQ(me.p2p, CMKIT_MPA_P2P_ON);
	EXPECT_EQ(me.rtr, CMKIT_MPA_RTR_WRITE);
	EXPECT_EQ(me.ird, 4);
	EXPECT_EQ(me.ord, 4);
	EXPECT_TRUE(cmkit_mpa_offer_ok(&me));
	me = MpaOffer(Parsed({"--rtr", "read"}));
	EXPECT_EQ(me.rtr, CMKIT_MPA_RTR_READ);
	EXPECT_TRUE(cmkit_mpa_offer_ok(&me));
	me = MpaOffer(Parsed({"--rtr", "none"}));
	EXPECT_EQ(me.p2p, CMKIT_MPA_P2P_OFF);
	EXPECT_EQ(me.rtr, 0);
	EXPECT_TRUE(cmkit_mpa_offer_ok(&me));
}

TEST(PeerMpa, WriteRtrBytes)
{
	// cmkit_rtr_build()'s zero-length RDMA Write as siw sends it:
	// ULPDU_Length 14; T, L, DDP 1; RDMAP 1, Write; STag 1; TO 0; no CRC.
	const Bytes want = {0x00, 0x0e, 0xc1, 0x40, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
			    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
	Bytes rtr;
	ASSERT_TRUE(MpaRtr(CMKIT_MPA_RTR_WRITE, false, &rtr));
	EXPECT_EQ(rtr, want);
	// With CRC: the same 16 bytes, then CRC32c eb d3 4c 5f (tests/mpa_fpdu_test.cpp).
	ASSERT_TRUE(MpaRtr(CMKIT_MPA_RTR_WRITE, true, &rtr));
	Bytes crc(want.begin(), want.end() - 4);
	crc.insert(crc.end(), {0xeb, 0xd3, 0x4c, 0x5f});
	EXPECT_EQ(rtr, crc);
}

TEST(PeerMpa, ReadRtrIsSiwsReadRequest)
{
	Bytes rtr;
	ASSERT_TRUE(MpaRtr(CMKIT_MPA_RTR_READ, false, &rtr));
	ASSERT_EQ(rtr.size(), 52U);
	cmkit_fpdu f;
	EXPECT_EQ(cmkit_rtr_check(rtr.data(), rtr.size(), CMKIT_MPA_RTR_READ, 0, &f), 52);
	EXPECT_EQ(f.hdr.src_stag, 1U);
	ASSERT_TRUE(MpaRtr(CMKIT_MPA_RTR_READ, true, &rtr));
	EXPECT_EQ(cmkit_rtr_check(rtr.data(), rtr.size(), CMKIT_MPA_RTR_READ, 1, &f), 52);
	// Exactly one type, or nothing.
	EXPECT_FALSE(MpaRtr(0, false, &rtr));
	EXPECT_TRUE(rtr.empty());
	EXPECT_FALSE(MpaRtr(CMKIT_MPA_RTR_WRITE | CMKIT_MPA_RTR_READ, false, &rtr));
}

TEST(PeerMpa, ReplyIsReadToItsEndAndNoFurther)
{
	Bytes reply = kSiwReply;
	reply.insert(reply.end(), {0xaa, 0xbb});	// private data of the server
	reply[19] = 0x06;
	cmkit_mpa_frame f{};
	size_t want = 0;
	for (size_t have = 0; have < reply.size(); have++) {
		ASSERT_EQ(MpaReadReply(reply.data(), have, &f, &want), 0) << have;
		EXPECT_EQ(want, have < 20 ? 20U : reply.size()) << have;
		EXPECT_GT(want, have);
	}
	ASSERT_EQ(MpaReadReply(reply.data(), reply.size(), &f, &want), 1);
	EXPECT_EQ(want, reply.size());
	EXPECT_EQ(f.frame_len, reply.size());
	EXPECT_EQ(f.pdata_len, 2);
	EXPECT_EQ(f.pdata[0], 0xaa);
}

TEST(PeerMpa, ReplyThatCanNeverBeOneIsRefusedAtItsHeader)
{
	cmkit_mpa_frame f{};
	size_t want = 0;
	Bytes req = Frame(kReqKey, {0x10, 0x02, 0x00, 0x04});
	EXPECT_EQ(MpaReadReply(req.data(), req.size(), &f, &want), CMKIT_MPA_E_KEY);
	Bytes big = Frame(kRepKey, {0x10, 0x02, 0x02, 0x01});	// PD_Length 513
	EXPECT_EQ(MpaReadReply(big.data(), big.size(), &f, &want), CMKIT_MPA_E_OVERSIZE);
	Bytes shortv2 = Frame(kRepKey, {0x10, 0x02, 0x00, 0x02});
	EXPECT_EQ(MpaReadReply(shortv2.data(), shortv2.size(), &f, &want), CMKIT_MPA_E_V2_SHORT);
}

TEST(PeerMpa, SiwsReplyAsksForTheWriteRtr)
{
	cmkit_mpa_frame f{};
	size_t want = 0;
	ASSERT_EQ(MpaReadReply(kSiwReply.data(), kSiwReply.size(), &f, &want), 1);
	const cmkit_mpa_offer me = MpaOffer(Parsed());
	cmkit_mpa_result r{};
	ASSERT_EQ(cmkit_mpa_initiate(&me, CMKIT_MPA_REV2, &f, &r), 0);
	EXPECT_TRUE(r.p2p);
	EXPECT_EQ(r.rtr, CMKIT_MPA_RTR_WRITE);
	EXPECT_FALSE(r.crc);
	EXPECT_EQ(r.ird, 1);	// lowered to the server's ORD
	EXPECT_EQ(r.ord, 4);

	// A reply without P2P to a request that offered it: no RTR to send.
	Bytes plain = Frame(kRepKey, {0x10, 0x02, 0x00, 0x04, 0x00, 0x04, 0x00, 0x01});
	ASSERT_EQ(MpaReadReply(plain.data(), plain.size(), &f, &want), 1);
	ASSERT_EQ(cmkit_mpa_initiate(&me, CMKIT_MPA_REV2, &f, &r), 0);
	EXPECT_FALSE(r.p2p);

	// A Write RTR chosen for a request that offered only Read.
	const cmkit_mpa_offer read = MpaOffer(Parsed({"--rtr", "read"}));
	ASSERT_EQ(MpaReadReply(kSiwReply.data(), kSiwReply.size(), &f, &want), 1);
	EXPECT_EQ(cmkit_mpa_initiate(&read, CMKIT_MPA_REV2, &f, &r), CMKIT_MPA_E_RTR);
}

TEST(PeerMpa, JsonLineOfAConnection)
{
	MpaConnOutcome c;
	c.n = 3;
	c.result = MpaConnOutcome::kOk;
	c.local_port = 40000;
	c.replied = true;
	c.reply_flags = 0x50;
	c.reply_rev = 2;
	c.decided = true;
	c.decision.p2p = 1;
	c.decision.rtr = CMKIT_MPA_RTR_WRITE;
	c.decision.crc = 1;
	c.decision.ird = 1;
	c.decision.ord = 4;
	c.rtr_sent = true;
	c.rtr_us = 12.34;
	c.peer_closed = true;
	c.held_ms = 7.25;
	EXPECT_EQ(MpaOutcomeJson(c),
		  "{\"role\":\"mpa-connect\",\"n\":3,\"result\":\"ok\",\"local_port\":40000,"
		  "\"reply_flags\":\"0x50\",\"reply_rev\":2,\"p2p\":true,\"rtr\":\"write\","
		  "\"crc\":true,\"ird\":1,\"ord\":4,\"rtr_sent\":true,\"rtr_us\":12.3,"
		  "\"peer_closed\":true,\"peer_bytes\":0,\"held_ms\":7.2}");

	MpaConnOutcome e;
	e.n = 1;
	e.error = "connect: Connection refused";
	EXPECT_EQ(MpaOutcomeJson(e), "{\"role\":\"mpa-connect\",\"n\":1,\"result\":\"error\","
				     "\"error\":\"connect: Connection refused\"}");

	// An RTR whose reply had no receive stamp: no rtr_us.
	c.rtr_us = -1;
	EXPECT_EQ(MpaOutcomeJson(c).find("rtr_us"), std::string::npos);

	MpaConnOutcome rej;
	rej.n = 2;
	rej.result = MpaConnOutcome::kRejected;
	rej.error = "no common RTR type";
	rej.replied = true;
	rej.reply_flags = 0x30;
	rej.reply_rev = 2;
	rej.reply_pdata = {0x43, 0x4d};
	EXPECT_EQ(MpaOutcomeJson(rej),
		  "{\"role\":\"mpa-connect\",\"n\":2,\"result\":\"rejected\",\"reason\":\"no common "
		  "RTR type\",\"reply_flags\":\"0x30\",\"reply_rev\":2,\"reply_pdata\":\"434d\"}");
}

TEST(PeerMpa, RtrNames)
{
	EXPECT_STREQ(RtrName(CMKIT_MPA_RTR_WRITE), "write");
	EXPECT_STREQ(RtrName(CMKIT_MPA_RTR_READ), "read");
	EXPECT_STREQ(RtrName(CMKIT_MPA_RTR_SEND), "send");
	EXPECT_STREQ(RtrName(0), "none");
}
