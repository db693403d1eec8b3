// Catalogue and cart for the demo shop. State lives in localStorage so the
// agent's actions persist across pages, as on a real site.
const PRODUCTS = [
  {id: 1, name: "Trail running shoes", category: "Shoes", price: 89.90, sizes: ["40", "41", "42", "43"]},
  {id: 2, name: "Leather city shoes", category: "Shoes", price: 129.00, sizes: ["41", "42", "44"]},
  {id: 3, name: "Wool hiking socks", category: "Socks", price: 14.50, sizes: ["S", "M", "L"]},
  {id: 4, name: "Striped cotton socks", category: "Socks", price: 7.25, sizes: ["S", "M", "L"]},
  {id: 5, name: "Rain jacket", category: "Jackets", price: 149.00, sizes: ["S", "M", "L", "XL"]},
  {id: 6, name: "Down winter jacket", category: "Jackets", price: 219.99, sizes: ["M", "L"]},
  {id: 7, name: "Canvas backpack 20 L", category: "Bags", price: 59.00, sizes: ["one size"]},
  {id: 8, name: "Bike messenger bag", category: "Bags", price: 74.50, sizes: ["one size"]},
];
function cart() { return JSON.parse(localStorage.getItem("cart") || "[]"); }
function saveCart(items) { localStorage.setItem("cart", JSON.stringify(items)); }
function money(x) { return "$" + x.toFixed(2); }
function param(name) { return new URLSearchParams(location.search).get(name) || ""; }
function esc(s) { const d = document.createElement("div"); d.textContent = s; return d.innerHTML; }
function productRow(p) {
  return `<li><a href="product.html?id=${p.id}">${esc(p.name)}</a> <span class="price">${money(p.price)}</span></li>`;
}
function header() {
  const n = cart().reduce((a, i) => a + i.qty, 0);
  document.getElementById("header").innerHTML = `
    <nav aria-label="Main"><a href="index.html">Home</a> |
    <a href="category.html?c=Shoes">Shoes</a> | <a href="category.html?c=Socks">Socks</a> |
    <a href="category.html?c=Jackets">Jackets</a> | <a href="category.html?c=Bags">Bags</a> |
    <a href="cart.html">Cart (${n})</a></nav>
    <form action="search.html" role="search"><label>Search <input name="q" type="search"
    value="${esc(param("q"))}"></label> <button type="submit">Search</button></form>`;
}
