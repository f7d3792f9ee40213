// SPDX-License-Identifier: GPL-2.0-only
/*
 * The shared layer's functions (lib/, declared in include/cmkit/) that the
 * KUnit suites call: cmkit.ko links lib/ once, and exports these only to
 * modules that import CMKIT_KUNIT_NS, only in kernels built with KUnit
 * (compat.h).  cmkit_test.ko must not link lib/ objects of its own: kbuild
 * warns about an object linked into two modules.
 */
#include <linux/export.h>
#include <linux/module.h>

#include "cmkit/mpa.h"
#include "cmkit/mpa_fpdu.h"
#include "cmkit/crc32c.h"
#include "cmkit/nfs4.h"
#include "cmkit/rpcrdma_chunk.h"
#include "cmkit/rpcrdma_cmp.h"
#include "cmkit/rpcrdma_msg.h"
#include "cmkit/srp.h"
#include "cmkit/srp_iu.h"

EXPORT_SYMBOL_IF_KUNIT(cmkit_mpa_build_v1);
EXPORT_SYMBOL_IF_KUNIT(cmkit_mpa_build_v2);
EXPORT_SYMBOL_IF_KUNIT(cmkit_mpa_parse_strict);
EXPORT_SYMBOL_IF_KUNIT(cmkit_mpa_parse);
EXPORT_SYMBOL_IF_KUNIT(cmkit_mpa_reject_reason_get);
EXPORT_SYMBOL_IF_KUNIT(cmkit_mpa_build_request);
EXPORT_SYMBOL_IF_KUNIT(cmkit_mpa_respond);
EXPORT_SYMBOL_IF_KUNIT(cmkit_mpa_build_reply);
EXPORT_SYMBOL_IF_KUNIT(cmkit_mpa_initiate);

EXPORT_SYMBOL_IF_KUNIT(cmkit_iwarp_hdr_len);
EXPORT_SYMBOL_IF_KUNIT(cmkit_fpdu_total_len);
EXPORT_SYMBOL_IF_KUNIT(cmkit_rtr_hdr);
EXPORT_SYMBOL_IF_KUNIT(cmkit_rtr_build);
EXPORT_SYMBOL_IF_KUNIT(cmkit_rtr_check);
EXPORT_SYMBOL_IF_KUNIT(cmkit_rtr_build_read_resp);
EXPORT_SYMBOL_IF_KUNIT(cmkit_rtr_check_read_resp);

EXPORT_SYMBOL_IF_KUNIT(cmkit_rpcrdma_cmp_encode);
EXPORT_SYMBOL_IF_KUNIT(cmkit_rpcrdma_cmp_decode);

EXPORT_SYMBOL_IF_KUNIT(cmkit_rpcrdma_decode_call);
EXPORT_SYMBOL_IF_KUNIT(cmkit_rpcrdma_encode_reply);
EXPORT_SYMBOL_IF_KUNIT(cmkit_rpcrdma_credit_limit);
EXPORT_SYMBOL_IF_KUNIT(cmkit_rpcrdma_result_name);

/* The RPC test server's chunks (kunit/rpc_server.c). */
EXPORT_SYMBOL_IF_KUNIT(cmkit_rpcrdma_decode_call_chunks);
EXPORT_SYMBOL_IF_KUNIT(cmkit_rpcrdma_encode_reply_chunks);
EXPORT_SYMBOL_IF_KUNIT(cmkit_rpcrdma_read_len);
EXPORT_SYMBOL_IF_KUNIT(cmkit_rpcrdma_write_len);
EXPORT_SYMBOL_IF_KUNIT(cmkit_rpcrdma_reply_len);
EXPORT_SYMBOL_IF_KUNIT(cmkit_rpcrdma_decode_rpc_call);
EXPORT_SYMBOL_IF_KUNIT(cmkit_rpcrdma_encode_rpc_reply);
EXPORT_SYMBOL_IF_KUNIT(cmkit_crc32c);
/* A call_chunks() call the KUnit cases write themselves. */
EXPORT_SYMBOL_IF_KUNIT(cmkit_rpcrdma_encode_rpc_call);

EXPORT_SYMBOL_IF_KUNIT(cmkit_srp_encode_login_req);
EXPORT_SYMBOL_IF_KUNIT(cmkit_srp_encode_login_req_rdma);
EXPORT_SYMBOL_IF_KUNIT(cmkit_srp_decode_login_rsp);
EXPORT_SYMBOL_IF_KUNIT(cmkit_srp_decode_login_rej);

EXPORT_SYMBOL_IF_KUNIT(cmkit_srp_iu_tag);
EXPORT_SYMBOL_IF_KUNIT(cmkit_srp_put_direct);
EXPORT_SYMBOL_IF_KUNIT(cmkit_srp_encode_cmd);
EXPORT_SYMBOL_IF_KUNIT(cmkit_srp_encode_tsk_mgmt);
EXPORT_SYMBOL_IF_KUNIT(cmkit_srp_decode_rsp);
EXPORT_SYMBOL_IF_KUNIT(cmkit_srp_encode_short_iu);
EXPORT_SYMBOL_IF_KUNIT(cmkit_srp_decode_short_iu);

/* NFSv4.0 COMPOUNDs (rpcrdma/nfs4.c's, and the KUnit suites'). */
EXPORT_SYMBOL_IF_KUNIT(cmkit_nfs4_anonymous_stateid);
EXPORT_SYMBOL_IF_KUNIT(cmkit_nfs4_bypass_stateid);
EXPORT_SYMBOL_IF_KUNIT(cmkit_nfs4_enc_begin);
EXPORT_SYMBOL_IF_KUNIT(cmkit_nfs4_enc_putrootfh);
EXPORT_SYMBOL_IF_KUNIT(cmkit_nfs4_enc_putfh);
EXPORT_SYMBOL_IF_KUNIT(cmkit_nfs4_enc_lookup);
EXPORT_SYMBOL_IF_KUNIT(cmkit_nfs4_enc_getfh);
EXPORT_SYMBOL_IF_KUNIT(cmkit_nfs4_enc_getattr);
EXPORT_SYMBOL_IF_KUNIT(cmkit_nfs4_enc_read);
EXPORT_SYMBOL_IF_KUNIT(cmkit_nfs4_enc_write);
EXPORT_SYMBOL_IF_KUNIT(cmkit_nfs4_enc_end);
EXPORT_SYMBOL_IF_KUNIT(cmkit_nfs4_decode_compound);
EXPORT_SYMBOL_IF_KUNIT(cmkit_rpc_encode_call_hdr);
EXPORT_SYMBOL_IF_KUNIT(cmkit_nfs4_result_name);
