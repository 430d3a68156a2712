// The static report (cobweb report DIR): filled in below.
