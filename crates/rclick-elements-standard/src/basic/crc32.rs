//! Click's CRC-32 (`lib/crc32.c`): the polynomial 0x04C11DB7 processed most
//! significant bit first, starting from 0xFFFFFFFF, with no final
//! inversion (the CRC-32/MPEG-2 parameters). crc32fast computes only the
//! reflected (Ethernet/zlib) CRC, which gives other values, so this small
//! table-driven version is written here; SetCRC32 and CheckCRC32 share it.

/// One entry a byte value: the CRC of that byte shifted into the top.
const TABLE: [u32; 256] = {
    let mut t = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = (i as u32) << 24;
        let mut k = 0;
        while k < 8 {
            c = if c & 0x8000_0000 != 0 {
                (c << 1) ^ 0x04C1_1DB7
            } else {
                c << 1
            };
            k += 1;
        }
        t[i] = c;
        i += 1;
    }
    t
};

/// The CRC of `data` as Click computes it.
pub(crate) fn click_crc32(data: &[u8]) -> u32 {
    data.iter().fold(0xFFFF_FFFF, |crc, &b| {
        (crc << 8) ^ TABLE[((crc >> 24) ^ u32::from(b)) as usize]
    })
}

#[cfg(test)]
mod tests {
    use super::click_crc32;

    #[test]
    fn known_values() {
        // The catalogue check value of CRC-32/MPEG-2, and what the
        // reference Click's SetCRC32 appends to 00112233 and to nothing.
        assert_eq!(click_crc32(b"123456789"), 0x0376_E6E7);
        assert_eq!(click_crc32(&[0x00, 0x11, 0x22, 0x33]), 0x8276_5AEC);
        assert_eq!(click_crc32(&[]), 0xFFFF_FFFF);
    }
}
