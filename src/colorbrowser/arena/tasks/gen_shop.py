"""Tasks on the shop: the storefront as the customer Nora Rogers (WebArena's shopping)
and the /dashboard/ as the administrator Omar Garcia (WebArena's shopping_admin)."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal

from colorbrowser.arena.tasks.draft import Draft, Snapshot, db, exact, fuzzy, includes, url

S = "__SHOPPING__"
A = "__SHOPPING_ADMIN__"
CUSTOMER = "nora"
MONTHS = ("January", "February", "March", "April", "May", "June")
SEARCH = {"role": "textbox", "name": "Search"}


def _money(value: object) -> str:
    return f"{Decimal(str(value)):.2f}"


def _sql(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


class Shop:
    def __init__(self, s: Snapshot) -> None:
        self.s = s

    def product(self, pid: int) -> tuple[str, str, float, int]:
        """(title, url path, price, stock)"""
        title, slug, price, stock = self.s.rows(
            "select p.title, p.slug, s.price, s.num_in_stock from catalogue_product p join "
            "partner_stockrecord s on s.product_id=p.id where p.id=?", pid)[0]
        return title, f"/catalogue/{slug}_{pid}/", price, stock

    def my_orders(self, month: int) -> int:
        return self.s.one("select count(*) from order_order o join auth_user u on "
                          "u.id=o.user_id where u.username=? and "
                          "cast(strftime('%m', o.date_placed) as integer)=?", CUSTOMER, month)


def drafts(snap: Callable[[str], Snapshot]) -> list[Draft]:
    shop = Shop(snap("shop"))
    return _storefront(shop) + _dashboard(shop)


def _storefront(shop: Shop) -> list[Draft]:
    s, out, site = shop.s, [], ["shopping"]
    for pid in (5, 140, 377):
        title, _path, price, _stock = shop.product(pid)
        other = _money(Decimal(str(price)) + 10)
        out.append(Draft(f"shop-price-{pid}", site, "How much does the {product} cost?",
                         {"product": title}, f"{S}/", includes(_money(price)),
                         [{"fill": SEARCH, "value": title}, {"press": SEARCH, "key": "Enter"},
                          {"click": {"role": "link", "name": title}},
                          {"stop": f"${_money(price)}", "wrong": f"${other}"}]))
    for month in (1, 3):
        count = shop.my_orders(month)
        out.append(Draft(f"shop-my-orders-{MONTHS[month - 1].lower()}", site,
                         "How many orders did I place in {month} 2024?",
                         {"month": MONTHS[month - 1]}, f"{S}/", exact(count),
                         [{"click": {"role": "link", "name": "Account"}},
                          {"click": {"role": "link", "name": "Order History"}},
                          {"stop": str(count), "wrong": str(count + 1)}]))
    for number in ("100202", "100163"):
        total = s.one("select total_incl_tax from order_order where number=?", number)
        out.append(Draft(f"shop-order-total-{number}", site,
                         "What was the total of my order {number}?", {"number": number},
                         f"{S}/accounts/orders/", includes(_money(total)),
                         [{"click": {"role": "link", "name": number}},
                          {"stop": f"${_money(total)}", "wrong": "$10.00"}]))
    number = "100158"
    titles = [r[0] for r in s.rows("select p.title from order_line l join order_order o on "
                                   "o.id=l.order_id join catalogue_product p on "
                                   "p.id=l.product_id where o.number=? order by l.id", number)]
    out.append(Draft(f"shop-order-items-{number}", site,
                     "Which products did I buy in order {number}?", {"number": number},
                     f"{S}/accounts/orders/", includes(*titles),
                     [{"click": {"role": "link", "name": number}},
                      {"stop": "; ".join(titles), "wrong": "; ".join(titles[:-1])}]))
    pid = 290
    title, path, _price, stock = shop.product(pid)
    out.append(Draft(f"shop-stock-{pid}", site, "How many {product} are left in stock?",
                     {"product": title}, f"{S}{path}", exact(stock),
                     [{"stop": str(stock), "wrong": str(stock + 5)}]))
    reviewed = s.rows("select p.id, r.title, r.body from reviews_productreview r join "
                      "catalogue_product p on p.id=r.product_id where r.score=5 "
                      "order by r.id limit 1")[0]
    title, path, _price, _stock = shop.product(reviewed[0])
    phrase = reviewed[1]
    out.append(Draft(f"shop-review-summary-{reviewed[0]}", site,
                     "What is the title of the best review of the {product}, and what did "
                     "the reviewer like?", {"product": title}, f"{S}{path}",
                     fuzzy(f"{reviewed[1]}: {reviewed[2]}", phrase),
                     [{"stop": f"{reviewed[1]}. {reviewed[2]}", "wrong": "It has no reviews."}]))
    # -- navigation
    for parent, name, path_, wrong in (
            ("Home & Kitchen", "Kettles", "home-kitchen/kettles_8", "Bedding"),
            ("Outdoor", "Tents", "outdoor/tents_14", "Water Bottles")):
        out.append(Draft(f"shop-category-{name.lower()}", site,
                         "Show me the {category} category of the store.", {"category": name},
                         f"{S}/", url(f"{S}/catalogue/category/{path_}/"),
                         [{"click": {"role": "link", "name": parent}},
                          {"click": {"role": "link", "name": name},
                           "wrong": {"role": "link", "name": wrong}}]))
    for term, wrong in (("rain jacket", "rain boots"), ("espresso", "tea")):
        out.append(Draft(f"shop-search-{term.replace(' ', '-')}", site,
                         "Search the store for \"{term}\".", {"term": term}, f"{S}/",
                         url(f"{S}/search/?q={term.replace(' ', '+')}"),
                         [{"fill": SEARCH, "value": term, "wrong": wrong},
                          {"press": SEARCH, "key": "Enter"}]))
    last = s.one("select o.number from order_order o join auth_user u on u.id=o.user_id "
                 "where u.username=? order by o.date_placed desc limit 1", CUSTOMER)
    out.append(Draft("shop-latest-order", site, "Open the page of my most recent order.", {},
                     f"{S}/", url(f"{S}/accounts/orders/{last}/"),
                     [{"click": {"role": "link", "name": "Account"}},
                      {"click": {"role": "link", "name": "Order History"}},
                      {"click": {"role": "link", "name": last},
                       "wrong": {"role": "link", "name": "Address Book"}}]))
    # -- content
    wish = ("select count(*) from wishlists_line l join wishlists_wishlist w on "
            "w.id=l.wishlist_id join auth_user u on u.id=w.owner_id where "
            "u.username='nora' and l.product_id={}")
    for pid, wrong_pid in ((12, 13), (215, 216)):
        title, path, _price, _stock = shop.product(pid)
        out.append(Draft(f"shop-wishlist-{pid}", site, "Add the {product} to my wish list.",
                         {"product": title}, f"{S}/",
                         db("shop", wish.format(pid), [[1]]),
                         [{"goto": f"{S}{path}", "wrong": f"{S}{shop.product(wrong_pid)[1]}"},
                          {"click": {"role": "button", "name": "Add to wish list"}}]))
    cart = ("select sum(l.quantity) from basket_line l join basket_basket b on "
            "b.id=l.basket_id join auth_user u on u.id=b.owner_id where u.username='nora' "
            "and b.status='Open' and l.product_id={}")
    for pid, wrong_pid in ((64, 65), (333, 334)):
        title, path, _price, _stock = shop.product(pid)
        out.append(Draft(f"shop-cart-{pid}", site, "Put the {product} in my shopping cart.",
                         {"product": title}, f"{S}/", db("shop", cart.format(pid), [[1]]),
                         [{"fill": SEARCH, "value": title,
                           "wrong": shop.product(wrong_pid)[0]},
                          {"press": SEARCH, "key": "Enter"},
                          {"click": {"role": "link", "name": title, "nth": 0}},
                          {"click": {"role": "button", "name": "Add to cart"}}]))
    out.append(Draft("shop-new-address", site,
                     "Add this address to my address book: {name}, {street}, {city}, "
                     "{state} {zip}.", {"name": "Nora Rogers", "street": "41 Lakeview Drive",
                                        "city": "Madison", "state": "WI", "zip": "53703"},
                     f"{S}/accounts/addresses/",
                     db("shop", "select line1, line4, state, postcode from address_useraddress a "
                        "join auth_user u on u.id=a.user_id where u.username='nora' and "
                        "a.line1='41 Lakeview Drive'", [["41 Lakeview Drive", "Madison", "WI",
                                                         "53703"]]),
                     [{"click": {"role": "link", "name": "Add a new address"}},
                      {"fill": {"role": "textbox", "name": "First name"}, "value": "Nora"},
                      {"fill": {"role": "textbox", "name": "Last name"}, "value": "Rogers"},
                      {"fill": {"role": "textbox", "name": "First line of address"},
                       "value": "41 Lakeview Drive"},
                      {"fill": {"role": "textbox", "name": "City"}, "value": "Madison"},
                      {"fill": {"role": "textbox", "name": "State/County"}, "value": "WI"},
                      {"fill": {"role": "textbox", "name": "Post/Zip-code"}, "value": "53703",
                       "wrong": "53704"},
                      {"select_option": {"role": "combobox", "name": "Country"},
                       "options": "United States"},
                      {"click": {"role": "button", "name": "Save"}}]))
    return out


def _dashboard(shop: Shop) -> list[Draft]:
    s, out, site = shop.s, [], ["shopping_admin"]
    people = dict(s.rows("select username, first_name||' '||last_name from auth_user"))
    for login, month in (("lily", 3), ("ella", 5)):
        count = s.one("select count(*) from order_order o join auth_user u on u.id=o.user_id "
                      "where u.username=? and cast(strftime('%m', o.date_placed) as integer)=?",
                      login, month)
        uid = s.one("select id from auth_user where username=?", login)
        out.append(Draft(f"admin-customer-orders-{login}", site,
                         "How many orders did {customer} place in {month} 2024?",
                         {"customer": people[login], "month": MONTHS[month - 1]}, f"{A}/",
                         exact(count),
                         [f"goto('{A}/users/{uid}/')",
                          {"stop": str(count), "wrong": str(count + 1)}]))
    for number in ("100300", "100290"):
        status = s.one("select status from order_order where number=?", number)
        out.append(Draft(f"admin-order-status-{number}", site,
                         "What is the status of order {number}?", {"number": number},
                         f"{A}/orders/", exact(status),
                         [{"fill": {"role": "textbox", "contains": "Order number"},
                           "value": number},
                          {"click": {"role": "button", "name": "Search"}},
                          {"stop": status, "wrong": "Complete" if status != "Complete"
                           else "Shipped"}]))
    for pid in (21, 402):
        title, _path, _price, stock = shop.product(pid)
        out.append(Draft(f"admin-stock-{pid}", site,
                         "How many units of the {product} are in stock?", {"product": title},
                         f"{A}/", exact(stock),
                         # found by its title, as the product's number is not in the goal
                         [f"goto('{A}/catalogue/')",
                          {"fill": {"role": "textbox", "name": "Product title:"},
                           "value": title},
                          {"click": {"role": "button", "name": "Search"}},
                          {"click": {"role": "link", "name": title}},
                          {"click": {"role": "link", "name": "Stock and pricing"}},
                          {"stop": str(stock), "wrong": str(stock + 1)}]))
    number = "100245"
    buyer = people[s.one("select u.username from order_order o join auth_user u on "
                         "u.id=o.user_id where o.number=?", number)]
    out.append(Draft(f"admin-order-customer-{number}", site,
                     "Which customer placed order {number}?", {"number": number},
                     f"{A}/orders/", exact(buyer),
                     [f"goto('{A}/orders/{number}/')",
                      {"stop": buyer, "wrong": "Omar Garcia"}]))
    day = "2024-04-19"
    total = s.one("select sum(total_incl_tax) from order_order where "
                  "date(date_placed)=? and status!='Cancelled'", day)
    count = s.one("select count(*) from order_order where date(date_placed)=? and "
                  "status!='Cancelled'", day)
    out.append(Draft("admin-revenue-day", site,
                     "What was the total value of the orders placed on {date} that were not "
                     "cancelled?", {"date": "April 19, 2024"}, f"{A}/orders/",
                     includes(_money(total)),
                     [f"goto('{A}/orders/?date_from={day}&date_to={day}')",
                      {"stop": f"${_money(total)} from {count} orders", "wrong": "$0.00"}]))
    best = s.rows("select p.title, sum(l.quantity) from order_line l join order_order o on "
                  "o.id=l.order_id join catalogue_product p on p.id=l.product_id where "
                  "strftime('%m', o.date_placed)='02' group by p.id order by 2 desc, p.id "
                  "limit 2")
    if best[0][1] > best[1][1]:
        out.append(Draft("admin-best-seller-february", site,
                         "Which product sold the most units in {month} 2024?",
                         {"month": "February"}, f"{A}/", includes(best[0][0]),
                         [f"goto('{A}/orders/?date_from=2024-02-01&date_to=2024-02-29')",
                          {"stop": best[0][0], "wrong": best[1][0]}]))
    # -- navigation
    for number in ("100150", "100288"):
        out.append(Draft(f"admin-open-order-{number}", site,
                         "Open order {number} in the admin.", {"number": number},
                         f"{A}/", url(f"{A}/orders/{number}/"),
                         [{"click": {"role": "button", "name": "Fulfilment"}},
                          {"click": {"role": "link", "name": "Orders"}},
                          {"fill": {"role": "textbox", "contains": "Order number"},
                           "value": number, "wrong": "100151"},
                          {"click": {"role": "button", "name": "Search"}}]))
    login = "oliviahernandez"
    uid = s.one("select id from auth_user where username=?", login)
    out.append(Draft("admin-customer-page", site,
                     "Show the admin page of the customer {customer}.",
                     {"customer": people[login]}, f"{A}/", url(f"{A}/users/{uid}/"),
                     [{"click": {"role": "button", "name": "Customers"}},
                      {"click": {"role": "link", "name": "Customers"}},
                      {"fill": {"role": "textbox", "name": "Name:"}, "value": people[login]},
                      {"click": {"role": "button", "name": "Search"}},
                      {"click": {"role": "link", "name": "View", "nth": 0},
                       "wrong": {"role": "link", "name": "Orders"}}]))
    pid = 77
    title = shop.product(pid)[0]
    out.append(Draft(f"admin-edit-product-{pid}", site,
                     "Open the admin page for editing the {product}.", {"product": title},
                     f"{A}/catalogue/", url(f"{A}/catalogue/products/{pid}/"),
                     [{"fill": {"role": "textbox", "name": "Product title:"}, "value": title},
                      {"click": {"role": "button", "name": "Search"}},
                      {"click": {"role": "link", "name": title},
                       "wrong": {"role": "link", "name": "Orders"}}]))
    # -- content
    pending = [r[0] for r in s.rows("select number from order_order where status='Pending' "
                                    "order by number")]
    for number, status, wrong in ((pending[0], "Processing", "Cancelled"),
                                  (pending[1], "Cancelled", "Processing")):
        out.append(Draft(f"admin-order-{status.lower()}-{number}", site,
                         "Change the status of order {number} to {status}.",
                         {"number": number, "status": status}, f"{A}/orders/{number}/",
                         db("shop", f"select status from order_order where number='{number}'",
                            [[status]]),
                         # a select2 box: open it, then pick the option
                         [{"click": {"role": "combobox", "name": "Processing"}},
                          {"click": {"role": "option", "name": status},
                           "wrong": {"role": "option", "name": wrong}},
                          {"click": {"role": "button", "name": "Change status"}}]))
    stock_box = {"role": "spinbutton", "name": "", "nth": 0}  # the stock table has no labels
    price_box = {"role": "spinbutton", "name": "", "nth": 2}
    for pid, amount in ((33, 80), (260, 5)):
        out.append(Draft(f"admin-set-stock-{pid}", site,
                         "Set the stock of the {product} to {amount} units.",
                         {"product": shop.product(pid)[0], "amount": amount},
                         f"{A}/catalogue/products/{pid}/",
                         db("shop", f"select num_in_stock from partner_stockrecord where "
                            f"product_id={pid}", [[amount]]),
                         [{"click": {"role": "link", "name": "Stock and pricing"}},
                          {"fill": stock_box, "value": str(amount), "wrong": str(amount + 8)},
                          {"click": {"role": "button", "name": "Save"}}]))
    pid, price = 118, "24.99"
    out.append(Draft(f"admin-set-price-{pid}", site,
                     "Change the price of the {product} to ${price}.",
                     {"product": shop.product(pid)[0], "price": price},
                     f"{A}/catalogue/products/{pid}/",
                     db("shop", f"select price from partner_stockrecord where product_id={pid}",
                        [[float(price)]]),
                     [{"click": {"role": "link", "name": "Stock and pricing"}},
                      {"fill": price_box, "value": price, "wrong": "29.99"},
                      {"click": {"role": "button", "name": "Save"}}]))
    number, text = "100202", "Customer asked for gift wrapping."
    out.append(Draft(f"admin-order-note-{number}", site,
                     "Add the note \"{text}\" to order {number}.",
                     {"text": text, "number": number}, f"{A}/orders/{number}/",
                     db("shop", "select count(*) from order_ordernote n join order_order o on "
                        f"o.id=n.order_id where o.number='{number}' and n.message={_sql(text)}",
                        [[1]]),
                     [{"click": {"role": "link", "name": "Notes"}},
                      "scroll(0, 0)",  # the tab fades in
                      {"fill": {"role": "textbox", "name": "Message"}, "value": text,
                       "wrong": "Customer asked for a receipt."},
                      {"click": {"role": "button", "name": "Save note"}}]))
    return out
