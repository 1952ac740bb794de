import CJudyFaultInjection
import CStateResolver
import Testing

@Test func interposed() {
    fault_injection_arm(0, true)
    var table: OpaquePointer?
    let status = csr_table_create(&table, nil, nil)
    fault_injection_disarm()
    #expect(status == CSR_ERR_NOMEM)
}
