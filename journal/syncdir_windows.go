package journal

import "os"

// syncDirFile does nothing on Windows: FlushFileBuffers needs a handle
// open for writing, which a directory's is not. NTFS logs the create or
// rename in its own metadata journal.
func syncDirFile(*os.File) error { return nil }
