// SPDX-License-Identifier: GPL-2.0-only
/*
 * The shared layer (include/cmkit/) spells its wire formats without any
 * kernel header; where the kernel defines the same lengths, opcodes and
 * flags, these compile-time checks tie the two together, so that neither
 * can drift.  Only what 6.1, 6.12 and 7.3 all define, with the same value,
 * is checked here (<scsi/srp.h> and <linux/sunrpc/rpc_rdma.h> are the same
 * in the three; msg_prot.h and scsi_proto.h grow, but keep every name used
 * below); what differs would go through a scripts/probes/ probe.
 *
 * MPA's limits (RFC 5044: 512 bytes of private data, the two keys) have no
 * kernel definition outside drivers (siw, irdma, cxgb4): <rdma/iw_cm.h>
 * defines none in any of these kernels, so there is nothing to check them
 * against.
 *
 * Nothing here emits code: the object is empty.
 */
#include <linux/build_bug.h>
#include <linux/nfs.h>
#include <linux/sunrpc/msg_prot.h>
#include <linux/sunrpc/xdr.h>		/* before rpc_rdma.h, which uses it (6.1) */
#include <linux/sunrpc/rpc_rdma.h>
#include <scsi/scsi_proto.h>
#include <scsi/srp.h>

#include "cmkit/rpcrdma_cmp.h"
#include "cmkit/rpcrdma_msg.h"
#include "cmkit/scsi.h"
#include "cmkit/srp.h"
#include "cmkit/srp_iu.h"

/* ---- SRP (<scsi/srp.h>): opcodes -------------------------------------- */
static_assert(CMKIT_SRP_LOGIN_REQ == SRP_LOGIN_REQ);
static_assert(CMKIT_SRP_TSK_MGMT == SRP_TSK_MGMT);
static_assert(CMKIT_SRP_CMD == SRP_CMD);
static_assert(CMKIT_SRP_I_LOGOUT == SRP_I_LOGOUT);
static_assert(CMKIT_SRP_LOGIN_RSP == SRP_LOGIN_RSP);
static_assert(CMKIT_SRP_RSP == SRP_RSP);
static_assert(CMKIT_SRP_LOGIN_REJ == SRP_LOGIN_REJ);
static_assert(CMKIT_SRP_T_LOGOUT == SRP_T_LOGOUT);
static_assert(CMKIT_SRP_CRED_REQ == SRP_CRED_REQ);
static_assert(CMKIT_SRP_AER_REQ == SRP_AER_REQ);
static_assert(CMKIT_SRP_CRED_RSP == SRP_CRED_RSP);
static_assert(CMKIT_SRP_AER_RSP == SRP_AER_RSP);

/* ---- SRP: information unit and descriptor lengths ---------------------- */
static_assert(sizeof(struct srp_login_req) == CMKIT_SRP_LOGIN_REQ_LEN);
static_assert(sizeof(struct srp_login_req_rdma) == CMKIT_SRP_LOGIN_REQ_RDMA_LEN);
static_assert(sizeof(struct srp_login_rsp) == CMKIT_SRP_LOGIN_RSP_LEN);
static_assert(sizeof(struct srp_login_rej) == CMKIT_SRP_LOGIN_REJ_LEN);
static_assert(sizeof(struct srp_tsk_mgmt) == CMKIT_SRP_TSK_MGMT_LEN);
static_assert(sizeof(struct srp_cmd) == CMKIT_SRP_CMD_LEN);
static_assert(sizeof(((struct srp_cmd *)0)->cdb) == CMKIT_SRP_CDB_LEN);
static_assert(sizeof(struct srp_rsp) == CMKIT_SRP_RSP_LEN);
static_assert(sizeof(struct srp_aer_req) == CMKIT_SRP_AER_REQ_LEN);
static_assert(sizeof(struct srp_i_logout) == CMKIT_SRP_SHORT_IU_LEN);
static_assert(sizeof(struct srp_t_logout) == CMKIT_SRP_SHORT_IU_LEN);
static_assert(sizeof(struct srp_cred_req) == CMKIT_SRP_SHORT_IU_LEN);
static_assert(sizeof(struct srp_cred_rsp) == CMKIT_SRP_SHORT_IU_LEN);
static_assert(sizeof(struct srp_aer_rsp) == CMKIT_SRP_SHORT_IU_LEN);
static_assert(sizeof(struct srp_direct_buf) == CMKIT_SRP_DIRECT_LEN);
static_assert(sizeof(struct srp_indirect_buf) == CMKIT_SRP_INDIRECT_LEN);
static_assert(sizeof(struct srp_imm_buf) == CMKIT_SRP_IMM_LEN);
static_assert(sizeof(((struct srp_login_req *)0)->initiator_port_id) == CMKIT_SRP_PORT_ID_LEN);

/* ---- SRP: buffer formats, descriptors, login flags and reject reasons --- */
static_assert(CMKIT_SRP_BUF_FORMAT_DIRECT == SRP_BUF_FORMAT_DIRECT);
static_assert(CMKIT_SRP_BUF_FORMAT_INDIRECT == SRP_BUF_FORMAT_INDIRECT);
static_assert(CMKIT_SRP_DATA_DESC_NONE == SRP_NO_DATA_DESC);
static_assert(CMKIT_SRP_DATA_DESC_DIRECT == SRP_DATA_DESC_DIRECT);
static_assert(CMKIT_SRP_DATA_DESC_INDIRECT == SRP_DATA_DESC_INDIRECT);
static_assert(CMKIT_SRP_DATA_DESC_IMM == SRP_DATA_DESC_IMM);
static_assert(CMKIT_SRP_MULTICHAN_SINGLE == SRP_MULTICHAN_SINGLE);
static_assert(CMKIT_SRP_MULTICHAN_MULTI == SRP_MULTICHAN_MULTI);
static_assert(CMKIT_SRP_IMMED_REQUESTED == SRP_IMMED_REQUESTED);
static_assert(CMKIT_SRP_LOGIN_RSP_MULTICHAN_NO_CHAN == SRP_LOGIN_RSP_MULTICHAN_NO_CHAN);
static_assert(CMKIT_SRP_LOGIN_RSP_MULTICHAN_TERMINATED == SRP_LOGIN_RSP_MULTICHAN_TERMINATED);
static_assert(CMKIT_SRP_LOGIN_RSP_MULTICHAN_MAINTAINED == SRP_LOGIN_RSP_MULTICHAN_MAINTAINED);
static_assert(CMKIT_SRP_LOGIN_RSP_IMMED_SUPP == SRP_LOGIN_RSP_IMMED_SUPP);
static_assert(CMKIT_SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL ==
	      SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL);
static_assert(CMKIT_SRP_LOGIN_REJ_INSUFFICIENT_RESOURCES ==
	      SRP_LOGIN_REJ_INSUFFICIENT_RESOURCES);
static_assert(CMKIT_SRP_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE ==
	      SRP_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE);
static_assert(CMKIT_SRP_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL ==
	      SRP_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL);
static_assert(CMKIT_SRP_LOGIN_REJ_UNSUPPORTED_DESCRIPTOR_FMT ==
	      SRP_LOGIN_REJ_UNSUPPORTED_DESCRIPTOR_FMT);
static_assert(CMKIT_SRP_LOGIN_REJ_MULTI_CHANNEL_UNSUPPORTED ==
	      SRP_LOGIN_REJ_MULTI_CHANNEL_UNSUPPORTED);
static_assert(CMKIT_SRP_LOGIN_REJ_CHANNEL_LIMIT_REACHED ==
	      SRP_LOGIN_REJ_CHANNEL_LIMIT_REACHED);

/* ---- SRP: task management functions and SRP_RSP flags ------------------ */
static_assert(CMKIT_SRP_TSK_ABORT_TASK == SRP_TSK_ABORT_TASK);
static_assert(CMKIT_SRP_TSK_ABORT_TASK_SET == SRP_TSK_ABORT_TASK_SET);
static_assert(CMKIT_SRP_TSK_CLEAR_TASK_SET == SRP_TSK_CLEAR_TASK_SET);
static_assert(CMKIT_SRP_TSK_LUN_RESET == SRP_TSK_LUN_RESET);
static_assert(CMKIT_SRP_TSK_CLEAR_ACA == SRP_TSK_CLEAR_ACA);
static_assert(CMKIT_SRP_RSP_RSPVALID == SRP_RSP_FLAG_RSPVALID);
static_assert(CMKIT_SRP_RSP_SNSVALID == SRP_RSP_FLAG_SNSVALID);
static_assert(CMKIT_SRP_RSP_DOOVER == SRP_RSP_FLAG_DOOVER);
static_assert(CMKIT_SRP_RSP_DOUNDER == SRP_RSP_FLAG_DOUNDER);
static_assert(CMKIT_SRP_RSP_DIOVER == SRP_RSP_FLAG_DIOVER);
static_assert(CMKIT_SRP_RSP_DIUNDER == SRP_RSP_FLAG_DIUNDER);

/* ---- RPC-over-RDMA version 1 (<linux/sunrpc/rpc_rdma.h>) --------------- */
/* rdma_msg, rdma_nomsg, rdma_done, rdma_error: these, in network order. */
static_assert(CMKIT_RPCRDMA_VERSION == RPCRDMA_VERSION);
static_assert(CMKIT_RPCRDMA_MSG == RDMA_MSG);
static_assert(CMKIT_RPCRDMA_NOMSG == RDMA_NOMSG);
static_assert(CMKIT_RPCRDMA_MSGP == RDMA_MSGP);
static_assert(CMKIT_RPCRDMA_DONE == RDMA_DONE);
static_assert(CMKIT_RPCRDMA_ERROR == RDMA_ERROR);
static_assert(CMKIT_RPCRDMA_ERR_VERS == ERR_VERS);
static_assert(CMKIT_RPCRDMA_ERR_CHUNK == ERR_CHUNK);
static_assert(CMKIT_RPCRDMA_HDR_LEN == RPCRDMA_HDRLEN_MIN);
static_assert(rpcrdma_fixed_maxsz * sizeof(__be32) == CMKIT_RPCRDMA_FIXED_LEN);
static_assert(CMKIT_RPCRDMA_DEFAULT_INLINE == RPCRDMA_V1_DEF_INLINE_SIZE);
static_assert(CMKIT_RPCRDMA_CMP_VERSION == RPCRDMA_CMP_VERSION);
static_assert(CMKIT_RPCRDMA_CMP_F_SND_W_INV_OK == RPCRDMA_CMP_F_SND_W_INV_OK);

/* ---- ONC RPC (<linux/sunrpc/msg_prot.h>, <linux/nfs.h>) ---------------- */
static_assert(CMKIT_RPC_VERSION == RPC_VERSION);
static_assert(CMKIT_RPC_CALL == RPC_CALL);
static_assert(CMKIT_RPC_REPLY == RPC_REPLY);
static_assert(CMKIT_RPC_MSG_ACCEPTED == RPC_MSG_ACCEPTED);
static_assert(CMKIT_RPC_MSG_DENIED == RPC_MSG_DENIED);
static_assert(CMKIT_RPC_SUCCESS == RPC_SUCCESS);
static_assert(CMKIT_RPC_PROG_UNAVAIL == RPC_PROG_UNAVAIL);
static_assert(CMKIT_RPC_PROG_MISMATCH == RPC_PROG_MISMATCH);
static_assert(CMKIT_RPC_PROC_UNAVAIL == RPC_PROC_UNAVAIL);
static_assert(CMKIT_RPC_GARBAGE_ARGS == RPC_GARBAGE_ARGS);
static_assert(CMKIT_RPC_SYSTEM_ERR == RPC_SYSTEM_ERR);
static_assert(CMKIT_RPC_MISMATCH == RPC_MISMATCH);
static_assert(CMKIT_RPC_AUTH_ERROR == RPC_AUTH_ERROR);
static_assert(CMKIT_RPC_AUTH_BADCRED == RPC_AUTH_BADCRED);
static_assert(CMKIT_RPC_AUTH_REJECTEDCRED == RPC_AUTH_REJECTEDCRED);
static_assert(CMKIT_RPC_AUTH_BADVERF == RPC_AUTH_BADVERF);
static_assert(CMKIT_RPC_AUTH_REJECTEDVERF == RPC_AUTH_REJECTEDVERF);
static_assert(CMKIT_RPC_AUTH_TOOWEAK == RPC_AUTH_TOOWEAK);
static_assert(CMKIT_RPC_AUTH_STAT_MAX == RPCSEC_GSS_CTXPROBLEM);
static_assert(CMKIT_RPC_AUTH_NONE == RPC_AUTH_NULL);
static_assert(CMKIT_RPC_AUTH_SYS == RPC_AUTH_UNIX);
static_assert(CMKIT_RPC_MAX_AUTH_LEN == RPC_MAX_AUTH_SIZE);
static_assert(CMKIT_RPC_PROG_NFS == NFS_PROGRAM);

/* ---- SCSI (<scsi/scsi_proto.h>): status, sense keys, opcodes ----------- */
static_assert(CMKIT_SCSI_STATUS_GOOD == SAM_STAT_GOOD);
static_assert(CMKIT_SCSI_STATUS_CHECK_CONDITION == SAM_STAT_CHECK_CONDITION);
static_assert(CMKIT_SCSI_SK_NO_SENSE == NO_SENSE);
static_assert(CMKIT_SCSI_SK_NOT_READY == NOT_READY);
static_assert(CMKIT_SCSI_SK_MEDIUM_ERROR == MEDIUM_ERROR);
static_assert(CMKIT_SCSI_SK_ILLEGAL_REQUEST == ILLEGAL_REQUEST);
static_assert(CMKIT_SCSI_SK_UNIT_ATTENTION == UNIT_ATTENTION);
static_assert(CMKIT_SCSI_SK_ABORTED_COMMAND == ABORTED_COMMAND);
static_assert(CMKIT_SCSI_TEST_UNIT_READY == TEST_UNIT_READY);
static_assert(CMKIT_SCSI_REQUEST_SENSE == REQUEST_SENSE);
static_assert(CMKIT_SCSI_INQUIRY == INQUIRY);
static_assert(CMKIT_SCSI_MODE_SENSE_6 == MODE_SENSE);
static_assert(CMKIT_SCSI_START_STOP_UNIT == START_STOP);
static_assert(CMKIT_SCSI_READ_CAPACITY_10 == READ_CAPACITY);
static_assert(CMKIT_SCSI_READ_10 == READ_10);
static_assert(CMKIT_SCSI_WRITE_10 == WRITE_10);
static_assert(CMKIT_SCSI_SYNCHRONIZE_CACHE_10 == SYNCHRONIZE_CACHE);
static_assert(CMKIT_SCSI_MODE_SENSE_10 == MODE_SENSE_10);
static_assert(CMKIT_SCSI_READ_16 == READ_16);
static_assert(CMKIT_SCSI_WRITE_16 == WRITE_16);
static_assert(CMKIT_SCSI_SYNCHRONIZE_CACHE_16 == SYNCHRONIZE_CACHE_16);
static_assert(CMKIT_SCSI_SERVICE_ACTION_IN_16 == SERVICE_ACTION_IN_16);
static_assert(CMKIT_SCSI_SAI_READ_CAPACITY_16 == SAI_READ_CAPACITY_16);
static_assert(CMKIT_SCSI_REPORT_LUNS == REPORT_LUNS);
