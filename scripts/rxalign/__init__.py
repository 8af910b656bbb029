"""rx-align: run the NET_IP_ALIGN/NET_SKB_PAD KUnit suite under QEMU, per arch."""
