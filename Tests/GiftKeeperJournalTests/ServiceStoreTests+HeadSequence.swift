import Testing

/// `gk_head_sequence`, which decides whether a device's posted head replaces the one there:
/// the seven bytes at 40–46 of its record, little endian, and 0 for a record too short to
/// hold them. Written as one expression (so PostgreSQL inlines it into each append), it
/// must read the same numbers as the summation it replaced.
extension ServiceStoreTests {
    @Test("A device head's sequence is read from its record's bytes 40-46, little endian; 0 when too short")
    func headSequence() async throws {
        let checks = [
            ("repeat('00', 40) || '0102030405060708'", "1976943448883713"),  // 0x07060504030201: byte 47 not read
            ("repeat('ff', 48)", "72057594037927935"),  // 2^56 - 1, the largest
            ("repeat('ab', 40) || '2a000000000000' || repeat('cd', 49)", "42"),  // a whole record
            ("repeat('ff', 47)", "0"),  // too short
        ]
        let sql = checks.map { bytes, expected in
            """
            DO $$ BEGIN
                IF gk_head_sequence(decode(\(bytes), 'hex')) IS DISTINCT FROM \(expected) THEN
                    RAISE EXCEPTION 'gk_head_sequence of % is %, not \(expected)', \(bytes), gk_head_sequence(decode(\(bytes), 'hex'));
                END IF;
            END $$;
            """
        }
        try await serverSide(sql.joined(separator: "\n"))
    }
}
