// SPDX-License-Identifier: GPL-2.0-only
// Host tests of the RFC 6581 deciders in include/cmkit/mpa.h: what a
// responder answers to a request, what an initiator makes of the reply, the
// revision fallback and the reasoned reject frames.  Frames of other stacks
// are written here by hand from their sources (siw_cm.c, irdma cm.c, cxgb4
// cm.c), not with the encoder under test.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "cmkit/mpa.h"

namespace {

using Bytes = std::vector<cmkit_u8>;

constexpr cmkit_u8 W = CMKIT_MPA_RTR_WRITE;
constexpr cmkit_u8 R = CMKIT_MPA_RTR_READ;
constexpr cmkit_u8 S = CMKIT_MPA_RTR_SEND;
constexpr cmkit_u16 NS = CMKIT_MPA_V2_NO_IRD_ORD;	// "not specified"

cmkit_mpa_offer Offer(cmkit_u8 rev, cmkit_u8 p2p, cmkit_u8 rtr, cmkit_u16 ird = 4,
		      cmkit_u16 ord = 4, cmkit_u8 crc = 0)
{
	cmkit_mpa_offer o{};
	o.rev = rev;
	o.p2p = p2p;
	o.rtr = rtr;
	o.ird = ird;
	o.ord = ord;
	o.crc = crc;
	return o;
}

// A frame by hand: key, flags, revision, PD_Length, then (when @v2) the
// IRD and ORD words, then private data.
Bytes Frame(bool reply, cmkit_u8 flags, cmkit_u8 rev, bool v2, cmkit_u16 ird_word = 0,
	    cmkit_u16 ord_word = 0, const Bytes &pd = {})
{
	const char *key = reply ? "MPA ID Rep Frame" : "MPA ID Req Frame";
	Bytes b(key, key + 16);
	size_t pd_len = pd.size() + (v2 ? 4 : 0);
	b.push_back(flags);
	b.push_back(rev);
	b.push_back(static_cast<cmkit_u8>(pd_len >> 8));
	b.push_back(static_cast<cmkit_u8>(pd_len));
	if (v2) {
		b.push_back(static_cast<cmkit_u8>(ird_word >> 8));
		b.push_back(static_cast<cmkit_u8>(ird_word));
		b.push_back(static_cast<cmkit_u8>(ord_word >> 8));
		b.push_back(static_cast<cmkit_u8>(ord_word));
	}
	b.insert(b.end(), pd.begin(), pd.end());
	return b;
}

Bytes Cmkr(cmkit_u16 reason)
{
	return { 'C', 'M', 'K', 'R', static_cast<cmkit_u8>(reason >> 8),
		 static_cast<cmkit_u8>(reason) };
}

// Parses an exact-size copy that outlives the frame (pdata points into it).
struct Parsed {
	std::unique_ptr<cmkit_u8[]> copy;
	cmkit_mpa_frame f{};
	int rc = 0;
};

Parsed Parse(const Bytes &b, cmkit_mpa_kind kind)
{
	Parsed p;
	p.copy.reset(new cmkit_u8[b.size() ? b.size() : 1]);
	if (!b.empty())
		std::memcpy(p.copy.get(), b.data(), b.size());
	p.rc = cmkit_mpa_parse(p.copy.get(), b.size(), kind, &p.f);
	return p;
}

int Respond(const cmkit_mpa_offer &me, const Bytes &req, cmkit_mpa_result *out)
{
	Parsed p = Parse(req, CMKIT_MPA_REQUEST);
	EXPECT_EQ(static_cast<int>(req.size()), p.rc);
	return cmkit_mpa_respond(&me, &p.f, out);
}

int Initiate(const cmkit_mpa_offer &me, cmkit_u8 sent_rev, const Bytes &rep,
	     cmkit_mpa_result *out)
{
	Parsed p = Parse(rep, CMKIT_MPA_REPLY);
	EXPECT_EQ(static_cast<int>(rep.size()), p.rc);
	return cmkit_mpa_initiate(&me, sent_rev, &p.f, out);
}

Bytes Reply(const cmkit_mpa_result &r, const Bytes &pd = {})
{
	cmkit_u8 buf[CMKIT_MPA_MAX_FRAME];
	int n = cmkit_mpa_build_reply(buf, sizeof(buf), &r, pd.empty() ? nullptr : pd.data(),
				      static_cast<cmkit_u16>(pd.size()));
	EXPECT_GT(n, 0) << cmkit_mpa_strerror(n);
	return n > 0 ? Bytes(buf, buf + n) : Bytes();
}

Bytes Request(const cmkit_mpa_offer &me, cmkit_u8 rev, const Bytes &pd = {})
{
	cmkit_u8 buf[CMKIT_MPA_MAX_FRAME];
	int n = cmkit_mpa_build_request(buf, sizeof(buf), &me, rev,
					pd.empty() ? nullptr : pd.data(),
					static_cast<cmkit_u16>(pd.size()));
	EXPECT_GT(n, 0) << cmkit_mpa_strerror(n);
	return n > 0 ? Bytes(buf, buf + n) : Bytes();
}

// ---- requests -------------------------------------------------------------

TEST(MpaRequest, EnhancedP2PRequestByteForByte)
{
	cmkit_mpa_offer me = Offer(2, CMKIT_MPA_P2P_ON, W | R, 4, 2, 1);
	// C and E flags, revision 2, PD_Length 4 + 2; IRD word: P2P | 4;
	// ORD word: Write and Read RTR | 2.
	Bytes want = Frame(false, 0x50, 2, true, 0x8004, 0xc002, { 'h', 'i' });
	EXPECT_EQ(want, Request(me, 2, { 'h', 'i' }));
	// A zero-length Send is the B bit of the IRD word.
	me = Offer(2, CMKIT_MPA_P2P_REQUIRED, S, 0, 0);
	EXPECT_EQ(Frame(false, 0x10, 2, true, 0xc000, 0x0000), Request(me, 2));
	// P2P off: the control bits stay clear, whatever @rtr holds.
	me = Offer(2, CMKIT_MPA_P2P_OFF, W, NS, NS);
	EXPECT_EQ(Frame(false, 0x10, 2, true, 0x3fff, 0x3fff), Request(me, 2));
}

TEST(MpaRequest, Revision1CarriesNoIrdOrdNorP2P)
{
	cmkit_mpa_offer me = Offer(2, CMKIT_MPA_P2P_ON, W, 4, 4, 1);
	EXPECT_EQ(Frame(false, 0x40, 1, false, 0, 0, { 'x' }), Request(me, 1, { 'x' }));
	me = Offer(1, CMKIT_MPA_P2P_OFF, 0);
	EXPECT_EQ(Frame(false, 0x00, 1, false), Request(me, 1));
}

TEST(MpaRequest, RefusesOffersThatCannotWork)
{
	cmkit_u8 buf[CMKIT_MPA_MAX_FRAME];
	const cmkit_mpa_offer bad[] = {
		Offer(0, CMKIT_MPA_P2P_OFF, 0),
		Offer(3, CMKIT_MPA_P2P_OFF, 0),
		Offer(2, CMKIT_MPA_P2P_ON, 0),		// P2P with no RTR type
		Offer(2, CMKIT_MPA_P2P_REQUIRED, 0),
		Offer(1, CMKIT_MPA_P2P_REQUIRED, W),	// P2P needs revision 2
		Offer(2, 3, W),				// no such stance
		Offer(2, CMKIT_MPA_P2P_ON, 0x08),	// no such RTR type
		Offer(2, CMKIT_MPA_P2P_OFF, 0, 0x4000, 1),
		Offer(2, CMKIT_MPA_P2P_OFF, 0, 1, 0x4000),
	};
	for (const cmkit_mpa_offer &o : bad)
		EXPECT_EQ(CMKIT_MPA_E_ARG, cmkit_mpa_build_request(buf, sizeof(buf), &o, o.rev,
								   nullptr, 0))
			<< int(o.rev) << " " << int(o.p2p) << " " << int(o.rtr);
	cmkit_mpa_offer v1 = Offer(1, CMKIT_MPA_P2P_OFF, 0);
	EXPECT_EQ(CMKIT_MPA_E_ARG, cmkit_mpa_build_request(buf, sizeof(buf), &v1, 2, nullptr, 0));
	EXPECT_EQ(CMKIT_MPA_E_ARG, cmkit_mpa_build_request(buf, sizeof(buf), &v1, 0, nullptr, 0));
	EXPECT_EQ(CMKIT_MPA_E_ARG, cmkit_mpa_build_request(buf, sizeof(buf), nullptr, 1, nullptr, 0));
	cmkit_mpa_offer v2 = Offer(2, CMKIT_MPA_P2P_ON, W);
	EXPECT_EQ(CMKIT_MPA_E_NOSPACE, cmkit_mpa_build_request(buf, 23, &v2, 2, nullptr, 0));
	EXPECT_EQ(CMKIT_MPA_E_PDATA, cmkit_mpa_build_request(buf, sizeof(buf), &v2, 2, buf, 509));
}

// ---- the responder ----------------------------------------------------------

struct RespondRow {
	const char *what;
	Bytes req;
	cmkit_mpa_offer me;
	int rc;			// 0 or a CMKIT_MPA_REJ_* reason
	cmkit_u8 rev;
	cmkit_u8 enhanced;
	cmkit_u8 crc;
	cmkit_u8 p2p;
	cmkit_u8 rtr;		// chosen; for a refusal what the reject advertises
	cmkit_u16 ird;
	cmkit_u16 ord;
};

TEST(MpaRespond, DecisionTable)
{
	const cmkit_u8 ON = CMKIT_MPA_P2P_ON, REQ = CMKIT_MPA_P2P_REQUIRED,
		       OFF = CMKIT_MPA_P2P_OFF;
	const RespondRow rows[] = {
		// siw as initiator (measured): revision 2, no P2P, IRD = ORD = 1.
		{ "siw request", Frame(false, 0x10, 2, true, 0x0001, 0x0001),
		  Offer(2, ON, W | R, 16, 16), 0, 2, 1, 0, 0, 0, 16, 1 },
		{ "siw request, P2P required",
		  Frame(false, 0x10, 2, true, 0x0001, 0x0001), Offer(2, REQ, W | R, 16, 16),
		  CMKIT_MPA_REJ_P2P_REQUIRED, 2, 1, 0, 1, W | R, 16, 16 },
		// irdma: CRC, P2P, both Write and Read offered.
		{ "irdma request", Frame(false, 0x50, 2, true, 0x8000 | 8, 0xc000 | 8),
		  Offer(2, ON, W | R | S, 4, 16), 0, 2, 1, 1, 1, W, 4, 8 },
		// cxgb4 by default: CRC, P2P, only its p2p_type (Read).
		{ "cxgb4 request", Frame(false, 0x50, 2, true, 0x8000 | 8, 0x4000 | 8),
		  Offer(2, ON, W | R, 4, 4), 0, 2, 1, 1, 1, R, 4, 4 },
		{ "cxgb4 request, no IRD to take its Read",
		  Frame(false, 0x50, 2, true, 0x8000 | 8, 0x4000 | 8), Offer(2, ON, W | R, 0, 4),
		  CMKIT_MPA_REJ_NO_RTR, 2, 1, 1, 1, W | R, 0, 4 },
		{ "IRD 0 leaves Write", Frame(false, 0x10, 2, true, 0x8004, 0xc004),
		  Offer(2, ON, W | R, 0, 4), 0, 2, 1, 0, 1, W, 0, 4 },
		{ "Read preferred to Send", Frame(false, 0x10, 2, true, 0xc004, 0x4004),
		  Offer(2, ON, R | S, 4, 4), 0, 2, 1, 0, 1, R, 4, 4 },
		{ "Send taken", Frame(false, 0x10, 2, true, 0xc004, 0x0004),
		  Offer(2, REQ, S, 4, 4), 0, 2, 1, 0, 1, S, 4, 4 },
		{ "only Send offered, Send not taken", Frame(false, 0x10, 2, true, 0xc004, 0x0004),
		  Offer(2, ON, W | R, 4, 4), CMKIT_MPA_REJ_NO_RTR, 2, 1, 0, 1, W | R, 4, 4 },
		{ "P2P with no RTR type", Frame(false, 0x10, 2, true, 0x8004, 0x0004),
		  Offer(2, ON, W | R | S, 4, 4), CMKIT_MPA_REJ_NO_RTR, 2, 1, 0, 1, W | R | S, 4, 4 },
		// RFC 6581, 9.2: A asked must be echoed; a responder without P2P refuses.
		{ "P2P off refuses a P2P request", Frame(false, 0x10, 2, true, 0x8004, 0xc004),
		  Offer(2, OFF, 0, 4, 4), CMKIT_MPA_REJ_NO_RTR, 2, 1, 0, 0, 0, 4, 4 },
		{ "revision 1 to a revision 2 responder", Frame(false, 0x00, 1, false, 0, 0, { 1 }),
		  Offer(2, ON, W, 4, 4), 0, 1, 0, 0, 0, 0, 4, 4 },
		{ "revision 1 and P2P required", Frame(false, 0x00, 1, false),
		  Offer(2, REQ, W, 4, 4), CMKIT_MPA_REJ_P2P_REQUIRED, 1, 0, 0, 1, W, 4, 4 },
		{ "revision 2 to a revision 1 responder", Frame(false, 0x10, 2, true, 4, 4),
		  Offer(1, OFF, 0, 4, 4), CMKIT_MPA_REJ_REVISION, 1, 0, 0, 0, 0, 4, 4 },
		{ "revision 3", Frame(false, 0x00, 3, false), Offer(2, ON, W, 4, 4),
		  CMKIT_MPA_REJ_REVISION, 2, 0, 0, 1, W, 4, 4 },
		{ "revision 0 (amso1100)", Frame(false, 0x00, 0, false), Offer(2, OFF, 0, 4, 4),
		  CMKIT_MPA_REJ_REVISION, 2, 0, 0, 0, 0, 4, 4 },
		{ "markers, revision 1", Frame(false, 0x80, 1, false), Offer(2, OFF, 0, 4, 4),
		  CMKIT_MPA_REJ_MARKERS, 1, 0, 0, 0, 0, 4, 4 },
		{ "markers, enhanced", Frame(false, 0xd0, 2, true, 0x8004, 0x8004),
		  Offer(2, ON, W, 4, 4), CMKIT_MPA_REJ_MARKERS, 2, 1, 1, 1, W, 4, 4 },
		{ "revision 2 without E", Frame(false, 0x00, 2, false, 0, 0, { 9, 9, 9, 9 }),
		  Offer(2, ON, W, 4, 4), 0, 2, 0, 0, 0, 0, 4, 4 },
		{ "revision 2 without E, P2P required", Frame(false, 0x00, 2, false),
		  Offer(2, REQ, W, 4, 4), CMKIT_MPA_REJ_P2P_REQUIRED, 2, 0, 0, 1, W, 4, 4 },
		{ "CRC asked by the initiator", Frame(false, 0x40, 1, false),
		  Offer(1, OFF, 0, 4, 4, 0), 0, 1, 0, 1, 0, 0, 4, 4 },
		{ "CRC asked by the responder", Frame(false, 0x00, 1, false),
		  Offer(1, OFF, 0, 4, 4, 1), 0, 1, 0, 1, 0, 0, 4, 4 },
	};
	for (const RespondRow &row : rows) {
		cmkit_mpa_result r{};
		EXPECT_EQ(row.rc, Respond(row.me, row.req, &r)) << row.what;
		EXPECT_EQ(row.rc == 0, r.accept) << row.what;
		EXPECT_EQ(row.rc, static_cast<int>(r.reason)) << row.what;
		EXPECT_EQ(row.rev, r.rev) << row.what;
		EXPECT_EQ(row.enhanced, r.enhanced) << row.what;
		EXPECT_EQ(row.crc, r.crc) << row.what;
		EXPECT_EQ(row.p2p, r.p2p) << row.what;
		EXPECT_EQ(row.rtr, r.rtr) << row.what;
		EXPECT_EQ(row.ird, r.ird) << row.what;
		EXPECT_EQ(row.ord, r.ord) << row.what;
	}
}

// The reply's IRD is ours; its ORD ours lowered to the initiator's IRD.
// 0 is "no read resources", 0x3fff "not specified" and limits nothing.
TEST(MpaRespond, IrdOrdTable)
{
	const cmkit_u16 v[] = { 0, 1, 4, 0x3ffe, NS };
	int refused = 0;
	for (cmkit_u16 ini_ird : v)
		for (cmkit_u16 ini_ord : v)
			for (cmkit_u16 my_ird : v)
				for (cmkit_u16 my_ord : v)
					for (cmkit_u8 strict : { 0, 1 }) {
		cmkit_mpa_offer me = Offer(2, CMKIT_MPA_P2P_OFF, 0, my_ird, my_ord);
		me.ird_strict = strict;
		cmkit_mpa_result r{};
		int rc = Respond(me, Frame(false, 0x10, 2, true, ini_ird, ini_ord), &r);
		bool short_ird = strict && ini_ord != NS && my_ird < ini_ord;
		SCOPED_TRACE(testing::Message() << ini_ird << "/" << ini_ord << " to "
			     << my_ird << "/" << my_ord << " strict " << int(strict));
		refused += short_ird;
		if (short_ird) {
			EXPECT_EQ(CMKIT_MPA_REJ_IRD, rc);
			continue;
		}
		ASSERT_EQ(0, rc);
		EXPECT_EQ(my_ird, r.ird);
		EXPECT_EQ(ini_ird < my_ord ? ini_ird : my_ord, r.ord);
	}
	EXPECT_GT(refused, 0);
}

TEST(MpaRespond, IrdOrdExamples)
{
	cmkit_mpa_result r{};
	// An initiator with no read resources: we may issue no Reads.
	ASSERT_EQ(0, Respond(Offer(2, CMKIT_MPA_P2P_OFF, 0, 8, 8),
			     Frame(false, 0x10, 2, true, 0, 8), &r));
	EXPECT_EQ(0, r.ord);
	EXPECT_EQ(8, r.ird);
	// An initiator that does not say: our ORD stands.
	ASSERT_EQ(0, Respond(Offer(2, CMKIT_MPA_P2P_OFF, 0, 8, 8),
			     Frame(false, 0x10, 2, true, NS, NS), &r));
	EXPECT_EQ(8, r.ord);
	// Neither says: the reply does not either.
	ASSERT_EQ(0, Respond(Offer(2, CMKIT_MPA_P2P_OFF, 0, NS, NS),
			     Frame(false, 0x10, 2, true, NS, NS), &r));
	EXPECT_EQ(NS, r.ird);
	EXPECT_EQ(NS, r.ord);
	// Strict: an ORD above our IRD is refused, an unspecified one is not.
	cmkit_mpa_offer strict = Offer(2, CMKIT_MPA_P2P_OFF, 0, 2, 2);
	strict.ird_strict = 1;
	EXPECT_EQ(CMKIT_MPA_REJ_IRD, Respond(strict, Frame(false, 0x10, 2, true, 4, 3), &r));
	EXPECT_EQ(0, Respond(strict, Frame(false, 0x10, 2, true, 4, NS), &r));
	EXPECT_EQ(0, Respond(strict, Frame(false, 0x10, 2, true, 4, 2), &r));
	// Relaxed (siw's and cxgb4's default): accept, the initiator lowers.
	strict.ird_strict = 0;
	ASSERT_EQ(0, Respond(strict, Frame(false, 0x10, 2, true, 4, 3), &r));
	EXPECT_EQ(2, r.ird);
}

TEST(MpaRespond, ArgumentsAndParser)
{
	cmkit_mpa_result r{};
	cmkit_mpa_offer me = Offer(2, CMKIT_MPA_P2P_ON, W);
	Parsed rep = Parse(Frame(true, 0x10, 2, true, 4, 4), CMKIT_MPA_REPLY);
	ASSERT_GT(rep.rc, 0);
	EXPECT_EQ(CMKIT_MPA_E_ARG, cmkit_mpa_respond(&me, &rep.f, &r));	// a reply
	Parsed req = Parse(Frame(false, 0x10, 2, true, 4, 4), CMKIT_MPA_REQUEST);
	EXPECT_EQ(CMKIT_MPA_E_ARG, cmkit_mpa_respond(nullptr, &req.f, &r));
	EXPECT_EQ(CMKIT_MPA_E_ARG, cmkit_mpa_respond(&me, nullptr, &r));
	EXPECT_EQ(CMKIT_MPA_E_ARG, cmkit_mpa_respond(&me, &req.f, nullptr));
	cmkit_mpa_offer bad = Offer(2, CMKIT_MPA_P2P_ON, 0);
	EXPECT_EQ(CMKIT_MPA_E_ARG, cmkit_mpa_respond(&bad, &req.f, &r));
}

// The lenient parser hands markers and unknown revisions to the deciders;
// cmkit_mpa_parse_strict() still refuses them from the header alone.
TEST(MpaRespond, LenientParserKeepsWhatTheStrictOneRefuses)
{
	for (const Bytes &b : { Frame(false, 0x80, 1, false, 0, 0, { 1, 2 }),
				Frame(false, 0x00, 3, false, 0, 0, { 1, 2 }),
				Frame(false, 0x10, 0, false, 0, 0, { 1, 2 }) }) {
		Parsed p = Parse(b, CMKIT_MPA_REQUEST);
		ASSERT_EQ(22, p.rc);
		EXPECT_EQ(b[16], p.f.flags);
		EXPECT_EQ(b[17], p.f.rev);
		EXPECT_FALSE(p.f.enhanced);
		EXPECT_EQ(2, p.f.pdata_len);
		cmkit_mpa_frame f{};
		EXPECT_LT(cmkit_mpa_parse_strict(b.data(), b.size(), CMKIT_MPA_REQUEST, &f), 0);
	}
	// Everything else is refused the same way by both.
	Bytes big = Frame(false, 0x00, 1, false);
	big[18] = 0x02;
	big[19] = 0x01;
	cmkit_mpa_frame f{};
	EXPECT_EQ(CMKIT_MPA_E_OVERSIZE, cmkit_mpa_parse(big.data(), big.size(),
							CMKIT_MPA_REQUEST, &f));
	Bytes shortv2 = Frame(false, 0x10, 2, false, 0, 0, { 1, 2 });
	EXPECT_EQ(CMKIT_MPA_E_V2_SHORT, cmkit_mpa_parse(shortv2.data(), shortv2.size(),
							CMKIT_MPA_REQUEST, &f));
	EXPECT_EQ(CMKIT_MPA_E_KEY, cmkit_mpa_parse(shortv2.data(), shortv2.size(),
						   CMKIT_MPA_REPLY, &f));
	EXPECT_EQ(0, cmkit_mpa_parse(shortv2.data(), 19, CMKIT_MPA_REQUEST, &f));
}

// ---- replies ----------------------------------------------------------------

TEST(MpaReply, AcceptByteForByte)
{
	cmkit_mpa_result r{};
	ASSERT_EQ(0, Respond(Offer(2, CMKIT_MPA_P2P_ON, W | R, 4, 16),
			     Frame(false, 0x50, 2, true, 0x8008, 0xc008), &r));
	// C and E; IRD word P2P | 4; ORD word Write RTR | 8; then the consumer's.
	EXPECT_EQ(Frame(true, 0x50, 2, true, 0x8004, 0x8008, { 'o', 'k' }),
		  Reply(r, { 'o', 'k' }));
	ASSERT_EQ(0, Respond(Offer(2, CMKIT_MPA_P2P_ON, S, 4, 4),
			     Frame(false, 0x10, 2, true, 0xc004, 0x0004), &r));
	EXPECT_EQ(Frame(true, 0x10, 2, true, 0xc004, 0x0004), Reply(r));
	ASSERT_EQ(0, Respond(Offer(2, CMKIT_MPA_P2P_ON, W, 4, 4),
			     Frame(false, 0x00, 2, false), &r));
	EXPECT_EQ(Frame(true, 0x00, 2, false), Reply(r));	// revision 2, no E
	ASSERT_EQ(0, Respond(Offer(2, CMKIT_MPA_P2P_ON, W, 4, 4, 1),
			     Frame(false, 0x00, 1, false), &r));
	EXPECT_EQ(Frame(true, 0x40, 1, false), Reply(r));
}

TEST(MpaReply, RejectsCarryTheirReason)
{
	cmkit_mpa_result r{};
	// Revision 1 responder, revision 2 request: a revision 1 reject.
	EXPECT_EQ(CMKIT_MPA_REJ_REVISION, Respond(Offer(1, CMKIT_MPA_P2P_OFF, 0),
						  Frame(false, 0x10, 2, true, 4, 4), &r));
	EXPECT_EQ(Frame(true, 0x20, 1, false, 0, 0, Cmkr(1)), Reply(r));
	// No common RTR type: an enhanced reject advertising P2P and every type
	// we take, with our IRD and ORD.
	EXPECT_EQ(CMKIT_MPA_REJ_NO_RTR, Respond(Offer(2, CMKIT_MPA_P2P_ON, W | S, 3, 5),
						Frame(false, 0x10, 2, true, 0x8004, 0x4004), &r));
	EXPECT_EQ(Frame(true, 0x30, 2, true, 0xc003, 0x8005, Cmkr(4)), Reply(r));
	EXPECT_EQ(CMKIT_MPA_REJ_MARKERS, Respond(Offer(2, CMKIT_MPA_P2P_OFF, 0),
						 Frame(false, 0x80, 1, false), &r));
	EXPECT_EQ(Frame(true, 0x20, 1, false, 0, 0, Cmkr(2)), Reply(r));
	EXPECT_EQ(CMKIT_MPA_REJ_P2P_REQUIRED, Respond(Offer(2, CMKIT_MPA_P2P_REQUIRED, R, 2, 2),
						      Frame(false, 0x10, 2, true, 1, 1), &r));
	EXPECT_EQ(Frame(true, 0x30, 2, true, 0x8002, 0x4002, Cmkr(3)), Reply(r));
	// A consumer's own reject carries the consumer's private data.
	ASSERT_EQ(0, Respond(Offer(2, CMKIT_MPA_P2P_ON, W, 2, 2),
			     Frame(false, 0x10, 2, true, 0x8001, 0x8001), &r));
	r.accept = 0;
	EXPECT_EQ(Frame(true, 0x30, 2, true, 0x8002, 0x8001, { 'n', 'o' }),
		  Reply(r, { 'n', 'o' }));
}

TEST(MpaReply, BuildRefusesWhatCannotBeSent)
{
	cmkit_u8 buf[CMKIT_MPA_MAX_FRAME];
	cmkit_mpa_result r{};
	r.accept = 1;
	r.rev = 2;
	r.enhanced = 1;
	r.p2p = 1;
	r.rtr = W | R;		// two types
	EXPECT_EQ(CMKIT_MPA_E_ARG, cmkit_mpa_build_reply(buf, sizeof(buf), &r, nullptr, 0));
	r.rtr = 0;		// none
	EXPECT_EQ(CMKIT_MPA_E_ARG, cmkit_mpa_build_reply(buf, sizeof(buf), &r, nullptr, 0));
	r.rtr = W;
	EXPECT_EQ(24, cmkit_mpa_build_reply(buf, sizeof(buf), &r, nullptr, 0));
	r.rev = 1;		// enhanced needs revision 2
	EXPECT_EQ(CMKIT_MPA_E_ARG, cmkit_mpa_build_reply(buf, sizeof(buf), &r, nullptr, 0));
	r.rev = 3;
	r.enhanced = 0;
	EXPECT_EQ(CMKIT_MPA_E_ARG, cmkit_mpa_build_reply(buf, sizeof(buf), &r, nullptr, 0));
	r.rev = 1;
	r.accept = 0;
	r.reason = CMKIT_MPA_REJ_IRD;	// a reason is the whole private data
	EXPECT_EQ(CMKIT_MPA_E_ARG, cmkit_mpa_build_reply(buf, sizeof(buf), &r, "x", 1));
	EXPECT_EQ(CMKIT_MPA_E_NOSPACE, cmkit_mpa_build_reply(buf, 25, &r, nullptr, 0));
	EXPECT_EQ(26, cmkit_mpa_build_reply(buf, 26, &r, nullptr, 0));
	r.reason = static_cast<cmkit_mpa_reject_reason>(7);	// not a reason
	EXPECT_EQ(CMKIT_MPA_E_ARG, cmkit_mpa_build_reply(buf, sizeof(buf), &r, nullptr, 0));
	r.reason = CMKIT_MPA_REJ_NONE;
	EXPECT_EQ(CMKIT_MPA_E_PDATA, cmkit_mpa_build_reply(buf, sizeof(buf), &r, buf, 513));
	EXPECT_EQ(CMKIT_MPA_E_ARG, cmkit_mpa_build_reply(buf, sizeof(buf), &r, nullptr, 1));
	EXPECT_EQ(CMKIT_MPA_E_ARG, cmkit_mpa_build_reply(nullptr, 0, &r, nullptr, 0));
	EXPECT_EQ(CMKIT_MPA_E_ARG, cmkit_mpa_build_reply(buf, sizeof(buf), nullptr, nullptr, 0));
}

// ---- the initiator ----------------------------------------------------------

struct InitiateRow {
	const char *what;
	cmkit_mpa_offer me;
	cmkit_u8 sent_rev;
	Bytes rep;
	int rc;
	cmkit_u8 p2p;
	cmkit_u8 rtr;
	cmkit_u8 crc;
	cmkit_u16 ird;
	cmkit_u16 ord;
};

TEST(MpaInitiate, DecisionTable)
{
	const cmkit_u8 ON = CMKIT_MPA_P2P_ON, REQ = CMKIT_MPA_P2P_REQUIRED,
		       OFF = CMKIT_MPA_P2P_OFF;
	const InitiateRow rows[] = {
		// siw answers a P2P request with Write when Write is offered.
		{ "siw reply, Write", Offer(2, REQ, W | R, 16, 4), 2,
		  Frame(true, 0x10, 2, true, 0x8010, 0x8010), 0, 1, W, 0, 16, 4 },
		{ "siw reply, Read", Offer(2, REQ, R, 32, 32), 2,
		  Frame(true, 0x10, 2, true, 0x8010, 0x4010), 0, 1, R, 0, 16, 16 },
		// siw's reply to a request without P2P (measured).
		{ "siw reply, no P2P", Offer(2, OFF, 0, 16, 16), 2,
		  Frame(true, 0x10, 2, true, 0x0010, 0x0010), 0, 0, 0, 0, 16, 16 },
		{ "Send chosen", Offer(2, ON, S | W, 4, 4), 2,
		  Frame(true, 0x10, 2, true, 0xc004, 0x0004), 0, 1, S, 0, 4, 4 },
		{ "P2P refused, optional", Offer(2, ON, W, 4, 4), 2,
		  Frame(true, 0x10, 2, true, 0x0004, 0x0004), 0, 0, 0, 0, 4, 4 },
		{ "P2P refused, required", Offer(2, REQ, W, 4, 4), 2,
		  Frame(true, 0x10, 2, true, 0x0004, 0x0004), CMKIT_MPA_E_P2P, 0, 0, 0, 4, 4 },
		{ "RTR bits without P2P mean nothing", Offer(2, ON, W, 4, 4), 2,
		  Frame(true, 0x10, 2, true, 0x4004, 0xc004), 0, 0, 0, 0, 4, 4 },
		{ "P2P granted unasked", Offer(2, OFF, 0, 4, 4), 2,
		  Frame(true, 0x10, 2, true, 0x8004, 0x8004), CMKIT_MPA_E_P2P, 0, 0, 0, 4, 4 },
		// cxgb4 replies with its own p2p_type, offered or not.
		{ "cxgb4 reply, Read not offered", Offer(2, ON, W, 4, 4), 2,
		  Frame(true, 0x50, 2, true, 0x8004, 0x4004), CMKIT_MPA_E_RTR, 0, 0, 1, 4, 4 },
		{ "two types chosen", Offer(2, ON, W | R, 4, 4), 2,
		  Frame(true, 0x10, 2, true, 0x8004, 0xc004), CMKIT_MPA_E_RTR, 0, 0, 0, 4, 4 },
		{ "no type chosen", Offer(2, ON, W | R, 4, 4), 2,
		  Frame(true, 0x10, 2, true, 0x8004, 0x0004), CMKIT_MPA_E_RTR, 0, 0, 0, 4, 4 },
		{ "Read chosen with IRD 0", Offer(2, ON, R, 4, 4), 2,
		  Frame(true, 0x10, 2, true, 0x8000, 0x4004), CMKIT_MPA_E_RTR, 0, 0, 0, 4, 4 },
		{ "reply revision above the request's", Offer(2, OFF, 0, 4, 4), 1,
		  Frame(true, 0x10, 2, true, 4, 4), CMKIT_MPA_E_REPLY_REV, 0, 0, 0, 4, 4 },
		{ "reply revision 3", Offer(2, OFF, 0, 4, 4), 2, Frame(true, 0x00, 3, false),
		  CMKIT_MPA_E_REPLY_REV, 0, 0, 0, 4, 4 },
		{ "revision 2 reply without E", Offer(2, OFF, 0, 4, 4), 2,
		  Frame(true, 0x00, 2, false), CMKIT_MPA_E_REPLY_REV, 0, 0, 0, 4, 4 },
		// irdma and cxgb4 take a revision 1 reply to revision 2.
		{ "revision 1 reply", Offer(2, ON, W, 4, 4), 2, Frame(true, 0x00, 1, false),
		  0, 0, 0, 0, 4, 4 },
		{ "revision 1 reply, P2P required", Offer(2, REQ, W, 4, 4), 2,
		  Frame(true, 0x00, 1, false), CMKIT_MPA_E_P2P, 0, 0, 0, 4, 4 },
		{ "markers", Offer(1, OFF, 0, 4, 4), 1, Frame(true, 0x80, 1, false),
		  CMKIT_MPA_E_MARKERS, 0, 0, 0, 4, 4 },
		{ "CRC asked, not granted", Offer(1, OFF, 0, 4, 4, 1), 1,
		  Frame(true, 0x00, 1, false), CMKIT_MPA_E_CRC, 0, 0, 0, 4, 4 },
		{ "CRC asked by the responder", Offer(1, OFF, 0, 4, 4, 0), 1,
		  Frame(true, 0x40, 1, false), 0, 0, 0, 1, 4, 4 },
		{ "IRD short of the reply's ORD", Offer(2, OFF, 0, 4, 4), 2,
		  Frame(true, 0x10, 2, true, 8, 8), CMKIT_MPA_E_IRD, 0, 0, 0, 4, 4 },
		{ "reply ORD unspecified", Offer(2, OFF, 0, 4, 4), 2,
		  Frame(true, 0x10, 2, true, 2, NS), 0, 0, 0, 0, 4, 2 },
		{ "reply IRD 0: no Reads for us", Offer(2, ON, W | R, 4, 4), 2,
		  Frame(true, 0x10, 2, true, 0x8000, 0x8001), 0, 1, W, 0, 1, 0 },
	};
	for (const InitiateRow &row : rows) {
		cmkit_mpa_result r{};
		EXPECT_EQ(row.rc, Initiate(row.me, row.sent_rev, row.rep, &r)) << row.what;
		EXPECT_EQ(row.rc == 0, r.accept) << row.what;
		if (row.rc)
			continue;
		EXPECT_EQ(row.rep[17], r.rev) << row.what;
		EXPECT_EQ(row.p2p, r.p2p) << row.what;
		EXPECT_EQ(row.rtr, r.rtr) << row.what;
		EXPECT_EQ(row.crc, r.crc) << row.what;
		EXPECT_EQ(row.ird, r.ird) << row.what;
		EXPECT_EQ(row.ord, r.ord) << row.what;
	}
}

TEST(MpaInitiate, IrdOrdTable)
{
	const cmkit_u16 v[] = { 0, 1, 4, 0x3ffe, NS };
	for (cmkit_u16 my_ird : v)
		for (cmkit_u16 my_ord : v)
			for (cmkit_u16 rep_ird : v)
				for (cmkit_u16 rep_ord : v) {
		cmkit_mpa_result r{};
		int rc = Initiate(Offer(2, CMKIT_MPA_P2P_OFF, 0, my_ird, my_ord), 2,
				  Frame(true, 0x10, 2, true, rep_ird, rep_ord), &r);
		SCOPED_TRACE(testing::Message() << my_ird << "/" << my_ord << " got "
			     << rep_ird << "/" << rep_ord);
		if (rep_ord != NS && my_ird < rep_ord) {
			EXPECT_EQ(CMKIT_MPA_E_IRD, rc);
			continue;
		}
		ASSERT_EQ(0, rc);
		EXPECT_EQ(rep_ird < my_ord ? rep_ird : my_ord, r.ord);
		EXPECT_EQ(rep_ord < my_ird ? rep_ord : my_ird, r.ird);
	}
}

TEST(MpaInitiate, RejectsNameTheirReason)
{
	cmkit_mpa_offer me = Offer(2, CMKIT_MPA_P2P_ON, W);
	cmkit_mpa_result r{};
	for (cmkit_u16 reason = 1; reason <= CMKIT_MPA_REJ_MAX; reason++) {
		EXPECT_EQ(CMKIT_MPA_E_REJECTED,
			  Initiate(me, 2, Frame(true, 0x30, 2, true, 0x8004, 0x8004, Cmkr(reason)),
				   &r));
		EXPECT_EQ(reason, r.reason);
		EXPECT_FALSE(r.accept);
	}
	// siw's own reject: the request's header echoed with R, no private data.
	EXPECT_EQ(CMKIT_MPA_E_REJECTED, Initiate(me, 2, Frame(true, 0x30, 2, true, 0, 0), &r));
	EXPECT_EQ(CMKIT_MPA_REJ_NONE, r.reason);
	// A consumer's reject with its own private data.
	EXPECT_EQ(CMKIT_MPA_E_REJECTED,
		  Initiate(me, 2, Frame(true, 0x20, 1, false, 0, 0, { 'n', 'o', 'p', 'e', 0, 1 }),
			   &r));
	EXPECT_EQ(CMKIT_MPA_REJ_NONE, r.reason);
	// A reject is a reject whatever else is wrong with it.
	EXPECT_EQ(CMKIT_MPA_E_REJECTED, Initiate(me, 1, Frame(true, 0xa0, 7, false), &r));
}

TEST(MpaInitiate, Arguments)
{
	cmkit_mpa_offer me = Offer(2, CMKIT_MPA_P2P_ON, W);
	cmkit_mpa_result r{};
	Parsed rep = Parse(Frame(true, 0x10, 2, true, 4, 4), CMKIT_MPA_REPLY);
	Parsed req = Parse(Frame(false, 0x10, 2, true, 4, 4), CMKIT_MPA_REQUEST);
	EXPECT_EQ(CMKIT_MPA_E_ARG, cmkit_mpa_initiate(&me, 2, &req.f, &r));
	EXPECT_EQ(CMKIT_MPA_E_ARG, cmkit_mpa_initiate(&me, 3, &rep.f, &r));
	EXPECT_EQ(CMKIT_MPA_E_ARG, cmkit_mpa_initiate(&me, 0, &rep.f, &r));
	EXPECT_EQ(CMKIT_MPA_E_ARG, cmkit_mpa_initiate(nullptr, 2, &rep.f, &r));
	EXPECT_EQ(CMKIT_MPA_E_ARG, cmkit_mpa_initiate(&me, 2, nullptr, &r));
	EXPECT_EQ(CMKIT_MPA_E_ARG, cmkit_mpa_initiate(&me, 2, &rep.f, nullptr));
	cmkit_mpa_offer v1 = Offer(1, CMKIT_MPA_P2P_OFF, 0);
	EXPECT_EQ(CMKIT_MPA_E_ARG, cmkit_mpa_initiate(&v1, 2, &rep.f, &r));
}

// ---- both sides, every combination ------------------------------------------

// What the two offers should come to, said directly from the rules.
struct Expect {
	int reason;		// 0: accepted
	int init_rc;		// the initiator's verdict on an accept
	cmkit_u8 rtr;
};

Expect Outcome(const cmkit_mpa_offer &ini, const cmkit_mpa_offer &rsp)
{
	if (ini.rev > rsp.rev)
		return { CMKIT_MPA_REJ_REVISION, 0, 0 };
	bool asked = ini.rev == 2 && ini.p2p != CMKIT_MPA_P2P_OFF;
	if (rsp.p2p == CMKIT_MPA_P2P_REQUIRED && !asked)
		return { CMKIT_MPA_REJ_P2P_REQUIRED, 0, 0 };
	cmkit_u8 rtr = 0;
	if (asked) {	// RFC 6581, 9.2: echoed, or refused
		cmkit_u8 both = ini.rtr & (rsp.p2p != CMKIT_MPA_P2P_OFF ? rsp.rtr : 0);
		if (rsp.ird == 0)
			both &= ~R;
		rtr = (both & W) ? W : (both & R) ? R : (both & S) ? S : 0;
		if (!rtr)
			return { CMKIT_MPA_REJ_NO_RTR, 0, 0 };
	}
	if (!rtr && ini.p2p == CMKIT_MPA_P2P_REQUIRED)
		return { 0, CMKIT_MPA_E_P2P, 0 };
	return { 0, 0, rtr };
}

TEST(MpaExchange, EveryCombinationEndToEnd)
{
	int runs = 0, accepted = 0, p2p = 0;
	for (cmkit_u8 ini_rev : { 1, 2 })
	for (cmkit_u8 ini_p2p = 0; ini_p2p <= CMKIT_MPA_P2P_REQUIRED; ini_p2p++)
	for (cmkit_u8 ini_rtr = 0; ini_rtr <= CMKIT_MPA_RTR_ALL; ini_rtr++)
	for (cmkit_u8 ini_crc : { 0, 1 })
	for (cmkit_u8 rsp_rev : { 1, 2 })
	for (cmkit_u8 rsp_p2p = 0; rsp_p2p <= CMKIT_MPA_P2P_REQUIRED; rsp_p2p++)
	for (cmkit_u8 rsp_rtr = 0; rsp_rtr <= CMKIT_MPA_RTR_ALL; rsp_rtr++)
	for (cmkit_u8 rsp_crc : { 0, 1 })
	for (cmkit_u16 rsp_ird : { 0, 4 }) {
		cmkit_mpa_offer ini = Offer(ini_rev, ini_p2p, ini_rtr, 8, 8, ini_crc);
		cmkit_mpa_offer rsp = Offer(rsp_rev, rsp_p2p, rsp_rtr, rsp_ird, 8, rsp_crc);
		cmkit_u8 buf[CMKIT_MPA_MAX_FRAME];
		if (cmkit_mpa_build_request(buf, sizeof(buf), &ini, ini_rev, nullptr, 0) < 0) {
			// Only offers that cannot work are refused.
			ASSERT_TRUE((ini_p2p && !ini_rtr) || (ini_p2p == 2 && ini_rev == 1));
			continue;
		}
		if (rsp_p2p && !rsp_rtr)
			continue;
		if (rsp_p2p == CMKIT_MPA_P2P_REQUIRED && rsp_rev == 1)
			continue;
		SCOPED_TRACE(testing::Message()
			     << "initiator rev " << int(ini_rev) << " p2p " << int(ini_p2p)
			     << " rtr " << int(ini_rtr) << " crc " << int(ini_crc)
			     << "; responder rev " << int(rsp_rev) << " p2p " << int(rsp_p2p)
			     << " rtr " << int(rsp_rtr) << " crc " << int(rsp_crc)
			     << " ird " << rsp_ird);
		Expect want = Outcome(ini, rsp);
		cmkit_mpa_result rr{}, ir{};
		int rc = Respond(rsp, Request(ini, ini_rev), &rr);
		ASSERT_EQ(want.reason, rc);
		int irc = Initiate(ini, ini_rev, Reply(rr), &ir);
		runs++;
		if (want.reason) {
			EXPECT_EQ(CMKIT_MPA_E_REJECTED, irc);
			EXPECT_EQ(want.reason, static_cast<int>(ir.reason));
			continue;
		}
		EXPECT_EQ(want.rtr, rr.rtr);
		EXPECT_EQ(want.init_rc, irc);
		if (irc)
			continue;
		accepted++;
		p2p += ir.p2p;
		EXPECT_EQ(want.rtr, ir.rtr);
		EXPECT_EQ(rr.p2p, ir.p2p);
		EXPECT_EQ(ini_rev, ir.rev);
		EXPECT_EQ(ini_crc || rsp_crc, ir.crc);
		EXPECT_EQ(rr.crc, ir.crc);
	}
	EXPECT_GT(runs, 5000);
	EXPECT_GT(accepted, 1000);
	EXPECT_GT(p2p, 500);
}

// ---- revision fallback ------------------------------------------------------

TEST(MpaFallback, RecognisesRefusalsForTheRevision)
{
	cmkit_mpa_offer me = Offer(2, CMKIT_MPA_P2P_ON, W);
	me.rev1_fallback = 1;
	auto fb = [&](const cmkit_mpa_offer &o, cmkit_u8 sent, const Bytes &rep) {
		Parsed p = Parse(rep, CMKIT_MPA_REPLY);
		EXPECT_GT(p.rc, 0);
		return cmkit_mpa_fallback(&o, sent, &p.f);
	};
	// A revision 1 reject, with or without a reason.
	EXPECT_EQ(1, fb(me, 2, Frame(true, 0x20, 1, false)));
	EXPECT_EQ(1, fb(me, 2, Frame(true, 0x20, 1, false, 0, 0, Cmkr(CMKIT_MPA_REJ_REVISION))));
	// A revision 2 reject naming the revision.
	EXPECT_EQ(1, fb(me, 2, Frame(true, 0x20, 2, false, 0, 0, Cmkr(CMKIT_MPA_REJ_REVISION))));
	// A reset or close before any reply (what cxgb4 and irdma do).
	EXPECT_EQ(1, cmkit_mpa_fallback(&me, 2, nullptr));
	// Not for other reasons: siw's reject echoes revision 2 and carries none.
	EXPECT_EQ(0, fb(me, 2, Frame(true, 0x30, 2, true, 0, 0)));
	EXPECT_EQ(0, fb(me, 2, Frame(true, 0x30, 2, true, 0x8004, 0x4004,
				     Cmkr(CMKIT_MPA_REJ_NO_RTR))));
	// cxgb4's reject to an enhanced request: revision 2 with IRD/ORD.
	EXPECT_EQ(0, fb(me, 2, Frame(true, 0x30, 2, true, 0x8008, 0x4008)));
	EXPECT_EQ(0, fb(me, 2, Frame(true, 0x10, 1, false)));	// not a reject
	// Not after a revision 1 request, nor unless asked to, nor with P2P
	// required (revision 1 cannot carry it).
	EXPECT_EQ(0, fb(me, 1, Frame(true, 0x20, 1, false)));
	EXPECT_EQ(0, cmkit_mpa_fallback(&me, 1, nullptr));
	cmkit_mpa_offer no = me;
	no.rev1_fallback = 0;
	EXPECT_EQ(0, fb(no, 2, Frame(true, 0x20, 1, false)));
	EXPECT_EQ(0, cmkit_mpa_fallback(&no, 2, nullptr));
	cmkit_mpa_offer req = me;
	req.p2p = CMKIT_MPA_P2P_REQUIRED;
	EXPECT_EQ(0, fb(req, 2, Frame(true, 0x20, 1, false)));
	EXPECT_EQ(0, cmkit_mpa_fallback(nullptr, 2, nullptr));
	Parsed rq = Parse(Frame(false, 0x20, 1, false), CMKIT_MPA_REQUEST);
	EXPECT_EQ(0, cmkit_mpa_fallback(&me, 2, &rq.f));
}

// A revision 2 initiator meets a revision 1 responder: reject, fall back,
// connect in revision 1.
TEST(MpaFallback, EndToEndAgainstARevision1Responder)
{
	cmkit_mpa_offer ini = Offer(2, CMKIT_MPA_P2P_ON, W | R, 4, 4, 1);
	ini.rev1_fallback = 1;
	cmkit_mpa_offer rsp = Offer(1, CMKIT_MPA_P2P_OFF, 0, 4, 4);
	cmkit_mpa_result rr{}, ir{};
	ASSERT_EQ(CMKIT_MPA_REJ_REVISION, Respond(rsp, Request(ini, 2), &rr));
	Bytes rej = Reply(rr);
	EXPECT_EQ(1, rej[17]);
	ASSERT_EQ(CMKIT_MPA_E_REJECTED, Initiate(ini, 2, rej, &ir));
	EXPECT_EQ(CMKIT_MPA_REJ_REVISION, ir.reason);
	Parsed p = Parse(rej, CMKIT_MPA_REPLY);
	ASSERT_EQ(1, cmkit_mpa_fallback(&ini, 2, &p.f));
	ASSERT_EQ(0, Respond(rsp, Request(ini, 1), &rr));
	ASSERT_EQ(0, Initiate(ini, 1, Reply(rr), &ir));
	EXPECT_EQ(1, ir.rev);
	EXPECT_EQ(0, ir.p2p);
	EXPECT_EQ(1, ir.crc);
	p = Parse(Reply(rr), CMKIT_MPA_REPLY);
	EXPECT_EQ(0, cmkit_mpa_fallback(&ini, 1, &p.f));
}

// ---- reject reasons ---------------------------------------------------------

TEST(MpaRejectReason, RoundTripsEveryReason)
{
	cmkit_u8 buf[CMKIT_MPA_REJ_PD_LEN];
	for (int reason = 1; reason <= CMKIT_MPA_REJ_MAX; reason++) {
		auto rs = static_cast<cmkit_mpa_reject_reason>(reason);
		ASSERT_EQ(CMKIT_MPA_REJ_PD_LEN, cmkit_mpa_reject_reason_put(buf, sizeof(buf), rs));
		EXPECT_EQ(Cmkr(static_cast<cmkit_u16>(reason)), Bytes(buf, buf + sizeof(buf)));
		EXPECT_EQ(rs, cmkit_mpa_reject_reason_get(buf, sizeof(buf)));
		EXPECT_STRNE("unknown reason", cmkit_mpa_reason_str(rs));
		for (int other = 1; other < reason; other++)
			EXPECT_STRNE(cmkit_mpa_reason_str(rs),
				     cmkit_mpa_reason_str(static_cast<cmkit_mpa_reject_reason>(other)));
	}
	EXPECT_STREQ("unknown reason", cmkit_mpa_reason_str(
					       static_cast<cmkit_mpa_reject_reason>(CMKIT_MPA_REJ_MAX + 1)));
}

TEST(MpaRejectReason, AnythingElseIsNoReason)
{
	const Bytes none[] = {
		{},
		{ 'C', 'M', 'K', 'R', 0, 0 },		// NONE is never sent
		{ 'C', 'M', 'K', 'R', 0, CMKIT_MPA_REJ_MAX + 1 },	// unknown reason
		{ 'C', 'M', 'K', 'R', 0xff, 0xff },
		{ 'C', 'M', 'K', 'R', 0, 1, 0 },	// longer: a consumer's
		{ 'C', 'M', 'K', 'R', 0 },		// shorter
		{ 'c', 'M', 'K', 'R', 0, 1 },		// another tag
	};
	for (const Bytes &b : none) {
		std::unique_ptr<cmkit_u8[]> copy(new cmkit_u8[b.size() + 1]);
		if (!b.empty())
			std::memcpy(copy.get(), b.data(), b.size());
		EXPECT_EQ(CMKIT_MPA_REJ_NONE, cmkit_mpa_reject_reason_get(copy.get(), b.size()))
			<< b.size();
	}
	EXPECT_EQ(CMKIT_MPA_REJ_NONE, cmkit_mpa_reject_reason_get(nullptr, 6));
	cmkit_u8 buf[CMKIT_MPA_REJ_PD_LEN];
	EXPECT_EQ(CMKIT_MPA_E_ARG, cmkit_mpa_reject_reason_put(buf, sizeof(buf),
							       CMKIT_MPA_REJ_NONE));
	EXPECT_EQ(CMKIT_MPA_E_ARG, cmkit_mpa_reject_reason_put(
					   buf, sizeof(buf),
					   static_cast<cmkit_mpa_reject_reason>(CMKIT_MPA_REJ_MAX + 1)));
	EXPECT_EQ(CMKIT_MPA_E_ARG, cmkit_mpa_reject_reason_put(nullptr, 6, CMKIT_MPA_REJ_IRD));
	EXPECT_EQ(CMKIT_MPA_E_NOSPACE, cmkit_mpa_reject_reason_put(buf, 5, CMKIT_MPA_REJ_IRD));
}

}  // namespace
