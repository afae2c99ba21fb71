/* bakers rules pages: print the reference. (Each lesson is a link to its
 * own address, /lessons/<game>/<n>, which opens it at the table.) */
{
  const print = document.getElementById("btn-print");
  if (print) print.addEventListener("click", () => window.print());
}
