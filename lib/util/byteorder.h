/*
 * Little-endian loads and stores for wire formats.  SMB is little-endian
 * throughout; these never assume alignment.
 */
#ifndef RINGSMB_BYTEORDER_H
#define RINGSMB_BYTEORDER_H

#include <stdint.h>

static inline uint16_t pull_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static inline uint32_t pull_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) |
	       ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static inline uint64_t pull_le64(const uint8_t *p)
{
	return (uint64_t)pull_le32(p) | ((uint64_t)pull_le32(p + 4) << 32);
}

static inline void push_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void push_le32(uint8_t *p, uint32_t v)
{
	push_le16(p, (uint16_t)v);
	push_le16(p + 2, (uint16_t)(v >> 16));
}

static inline void push_le64(uint8_t *p, uint64_t v)
{
	push_le32(p, (uint32_t)v);
	push_le32(p + 4, (uint32_t)(v >> 32));
}

static inline uint32_t pull_be32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
	       ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

static inline void push_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

#endif
