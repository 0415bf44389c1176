import ChatFormat
import Testing

@Suite struct StatusFieldsTests {
    @Test("the first field always; a field that does not fit is left out and a shorter one after it still shown")
    func fit() {
        let fields = ["1234 rows", "a field far too long for the width", "12 files"]
        #expect(StatusFields.fit(fields, width: 80) == "1234 rows  a field far too long for the width  12 files")
        #expect(StatusFields.fit(fields, width: 30) == "1234 rows  12 files")
        #expect(StatusFields.fit(fields, width: 19) == "1234 rows  12 files")
        #expect(StatusFields.fit(fields, width: 18) == "1234 rows")
        #expect(StatusFields.fit(fields, width: 4) == "1234")
    }
}
