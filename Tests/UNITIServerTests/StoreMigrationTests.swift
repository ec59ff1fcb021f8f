import Testing
@testable import UNITIServer

@Suite("Store migrations")
struct StoreMigrationTests {
    @Test("the migration steps keep their identifiers and order, so existing server databases open unchanged")
    func identifiersAndOrder() {
        #expect(ServerMigrations.migrator.migrations == [
            "v1-accounts", "v1-studies", "v1-sheets", "v1-module-records", "v2-module-resources", "v3-answer-sheets-by-user",
        ])
    }
}
