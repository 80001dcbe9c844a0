#include "trace/message_tag.h"

namespace m2 {

std::string message_name(MessageId id) {
  if (!id) return "";
  return std::to_string(message_src(id)) + "." + std::to_string(message_seq(id));
}

const char* message_point_name(MessagePoint p) {
  switch (p) {
    case MessagePoint::HostSend:
      return "host_send";
    case MessagePoint::HostPosted:
      return "host_posted";
    case MessagePoint::RequestIn:
      return "request_in";
    case MessagePoint::SendTaken:
      return "send_taken";
    case MessagePoint::TxDmaQueued:
      return "tx_dma_queued";
    case MessagePoint::TxDmaDone:
      return "tx_dma_done";
    case MessagePoint::TxPushed:
      return "tx_pushed";
    case MessagePoint::MlxCut:
      return "mlx_cut";
    case MessagePoint::LinkIn:
      return "link_in";
    case MessagePoint::SbHeader:
      return "sb_header";
    case MessagePoint::SbRequest:
      return "sb_request";
    case MessagePoint::SbMoveStart:
      return "sb_move_start";
    case MessagePoint::SbMoveEnd:
      return "sb_move_end";
    case MessagePoint::RxHeader:
      return "rx_header";
    case MessagePoint::RxDmaQueued:
      return "rx_dma_queued";
    case MessagePoint::RxDmaDone:
      return "rx_dma_done";
    case MessagePoint::RecordQueued:
      return "record_queued";
    case MessagePoint::RecordDone:
      return "record_done";
    case MessagePoint::HostDone:
      return "host_done";
    case MessagePoint::Count:
      break;
  }
  return "?";
}

}  // namespace m2
